"""A misbehaving outside agent for the adapter attacks: JSON Lines on stdin/stdout (stdlib only).

It answers "A:<question>" and acks learn / reset, echoing any request id the harness sends
(`id`, `request_id`, `seq`), so it speaks the protocol with or without ids. `--mode`:
  answer-twice   the first answer is written twice (one reply line too many)
  learn-twice    the first learn ack is written twice
  huge-line      every answer is one line of 17 MiB
  spawn          at start, runs a child and a `setsid` grandchild (`sleep 300`); their pids go to --pids
  creds          on the first request prints $FUZZ_AGENT_API_KEY and a URL with a password on stderr, exits 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ID_KEYS = ("id", "request_id", "seq")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="normal")
    parser.add_argument("--pids", default="")
    options = parser.parse_args()
    mode = options.mode
    if mode == "spawn":
        child = subprocess.Popen(["sleep", "300"])
        grandchild = subprocess.Popen(["setsid", "sleep", "300"])
        with open(options.pids, "w", encoding="utf-8") as handle:
            json.dump({"child": child.pid, "setsid_grandchild": grandchild.pid}, handle)
    first = {"answer": True, "learn": True}
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        echo = {key: request[key] for key in ID_KEYS if key in request}
        if mode == "creds":
            key = os.environ.get("FUZZ_AGENT_API_KEY", "")
            print(f"auth failed: token {key} rejected by https://agent:{key[::-1]}@127.0.0.1:9/v1?api_key={key}",
                  file=sys.stderr, flush=True)
            return 3
        if op == "answer":
            text = "x" * (17 << 20) if mode == "huge-line" else f"A:{request.get('question', '')}"
            reply = json.dumps({**echo, "answer": text}) + "\n"
            repeat = 2 if mode == "answer-twice" and first["answer"] else 1
            first["answer"] = False
        else:
            reply = json.dumps({**echo, "ok": True}) + "\n"
            repeat = 2 if mode == "learn-twice" and op == "learn" and first["learn"] else 1
            if op == "learn":
                first["learn"] = False
        sys.stdout.write(reply * repeat)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
