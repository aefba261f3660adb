"""An example subprocess agent for the adapter tests: JSON Lines on stdin/stdout (no `benchmarker` import).

It echoes each request's `id` in its reply (protocol version 2); `--no-id` behaves like a version 1
agent that does not. `--mode` scripts misbehaviour on the answer op: `bad-json`, `die`, `hang`, `refuse`,
`double` (writes its answer twice); `stubborn` ignores stdin closing and SIGTERM. With `--once FLAG_FILE`
the misbehaviour happens once across processes (the first answer finding FLAG_FILE absent creates it
and misbehaves; later answers behave).
A learn line whose `idempotency_key` was already taken since the last reset is acknowledged and not
stored again (a retried message), as the HTTP example does with its Idempotency-Key header.
EXAMPLE_AGENT_TRANSCRIPT names a file that receives every request and reply, one JSON object a
line, for the schema checks and for counting calls.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

from keyword_memory import KeywordMemory  # this script's folder is on sys.path when run as a file


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="normal", choices=["normal", "bad-json", "die", "hang", "refuse", "double",
                                                                  "stubborn"])
    parser.add_argument("--no-id", action="store_true", help="do not echo request ids (a version 1 agent)")
    parser.add_argument("--once", default="", help="misbehave only while this flag file does not exist")
    options = parser.parse_args()
    mode = options.mode
    transcript = os.environ.get("EXAMPLE_AGENT_TRANSCRIPT")
    memory = KeywordMemory()
    keys: set[str] = set()  # idempotency_key values taken since the last reset
    print(f"example agent started in mode {mode}", file=sys.stderr, flush=True)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def reply(obj: dict, request: dict) -> None:
        if "id" in request and not options.no_id:
            obj = {"id": request["id"], **obj}
        if transcript:
            with open(transcript, "a", encoding="utf-8") as f:
                f.write(json.dumps({"request": request, "reply": obj, "pid": os.getpid()}) + "\n")
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "learn":
            key = request.get("idempotency_key") or ""
            if key and key in keys:  # a retry of a message already taken: success, stored once
                reply({"ok": True}, request)
                continue
            keys.add(key)
            reported = memory.learn(request)
            print(f"learned {len(memory.items)} items", file=sys.stderr, flush=True)
            reply({"ok": True, **reported}, request)
        elif op == "reset":
            memory.reset()
            keys.clear()
            reply({"ok": True}, request)
        elif op == "answer":
            if options.once and mode != "normal":
                try:
                    open(options.once, "x").close()  # the first to create it misbehaves, once
                except FileExistsError:
                    mode = "normal"
            if mode == "bad-json":
                sys.stdout.write("thinking... {not json\n")
                sys.stdout.flush()
            elif mode == "die":
                print("fatal: simulated crash while answering", file=sys.stderr, flush=True)
                return 3
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "double":
                answer = memory.answer(request["question"], request["question_date"])
                reply(answer, request)
                reply(answer, request)
            elif mode == "refuse":
                reply({"error": "no model configured"}, request)
            else:
                reply(memory.answer(request["question"], request["question_date"]), request)
        else:
            reply({"error": f"unknown op {op!r}"}, request)
    if mode == "stubborn":
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
