"""Information blocks 7-12: callbacks, distractors, security logs, incidents, infrastructure, problem solving."""

from __future__ import annotations

from benchmarker.suites.long_horizon.data import pools
from benchmarker.suites.long_horizon.data.world import Host, Pair, World

DATE = "@DATE@"  # replaced by the session's ISO date once the event has a place in the timeline


def callbacks(w: World, n: int) -> None:
    signals = ["go-live", "rollback", "all-clear", "code freeze", "launch party", "fire drill"]
    combos = ([("plant", p) for p in pools.PLANTS] + [("codeword", s) for s in signals]
              + [("book", b) for b in pools.BOOKS])
    for part in w.alternate_parts(n):
        kind, item = w.draw("callback", combos)
        if kind == "plant":
            value = w.draw("plant_name", pools.PLANT_NAMES)
            early = f"I put a {item} on my desk and named it {value}."
            late = f"Remember the {item} I told you about at the very beginning? It finally has a new leaf."
            subject = item
        elif kind == "codeword":
            value = w.draw("codeword", pools.CODEWORDS)
            early = f"For the {item} signal, let's use the codeword '{value}'."
            late = f"We finally used that {item} codeword I picked at the start of our chats."
            subject = item
        else:
            subject, value = item
            early = f"I just started reading '{subject}' by {value}."
            late = f"Finished '{subject}', the book I mentioned ages ago. What an ending."
        u = w.unit("callbacks", part, kind=kind, subject=subject, value=value)
        u.data["f"] = w.fact(u, kind, value, subject)
        u.data["f_late"] = w.fact(u, f"{kind}_callback", value, subject)
        w.say("callbacks", w.between(0.0, 0.12), early, (u.data["f"],))
        w.say("callbacks", w.between(0.6, 0.99), late, (u.data["f_late"],),
              assistant="Yes, I remember you mentioning that early on.")


def distractors(w: World, n: int) -> None:
    persons = w.units.get("people", [])
    kinds = {"pet": (pools.PETS, "{f}'s dog is called {v}.", "Funny coincidence: {f}'s neighbour also has a dog, named {v}."),
             "car": (pools.CARS, "{f} drives a {v}.", "{f}'s brother drives a {v}, which confuses the parking team."),
             "coffee": (pools.COFFEES, "{f}'s usual coffee order is a {v}.", "{f}'s manager always orders a {v}."),
             "commute": (pools.COMMUTES, "{f} commutes to work by {v}.", "{f}'s flatmate commutes by {v}.")}
    combos = [(p, k) for p in persons for k in kinds]
    for _ in range(n):
        person, kind = w.draw("distractor", combos)
        pool, true_t, false_t = kinds[kind]
        value, other = w.rng.sample(pool, 2)
        first = person.data["first"]
        u = w.unit("distractors", person.part, kind=kind, person=person.uid, value=value, other=other)
        u.data["f"] = w.fact(u, kind, value, person.data["full"])
        u.data["f_other"] = w.fact(u, f"{kind}_lookalike", other, f"someone close to {person.data['full']}")
        pos = w.between(0.0, 0.7)
        w.say("distractors", pos, true_t.format(f=first, v=value), (u.data["f"],))
        w.say("distractors", w.between(pos + 0.05, 0.99), false_t.format(f=first, v=other), (u.data["f_other"],))


def hosts(w: World, n_events: int) -> None:
    n = max(2, n_events // 3)
    parts = w.alternate_parts(n)
    w.hosts = [{"host": w.unique(lambda: f"{w.rng.choice(pools.HOST_PREFIXES)}-{w.rng.randrange(1, 60):02d}"),
                "part": p, "events": []} for p in parts]


def _host(w: World, i: int) -> Host:
    return w.hosts[i] if i < len(w.hosts) else w.rng.choice(w.hosts)


def security(w: World, n: int) -> None:
    for i in range(n):
        h = _host(w, i)
        alert = w.unique(lambda: f"SEC-{w.rng.randrange(1000, 9999)}")
        ip, stamp = w.ip(), f"{DATE} {w.rng.randrange(24):02d}:{w.rng.randrange(60):02d} UTC"
        kind = w.rng.choice(["ssh", "scan", "waf"])
        if kind == "ssh":
            count, what = w.rng.randrange(12, 900), "How many failed password attempts did alert {a} record?"
            user = w.rng.choice(["admin", "deploy", "backup", "root", "jenkins", "oracle"])
            text = (f"Auth log, alert {alert}: at {stamp} sshd on {h['host']} recorded {count} failed password "
                    f"attempts for user '{user}' from {ip}.")
        elif kind == "scan":
            count, what = w.rng.randrange(100, 9000), "How many ports were scanned according to alert {a}?"
            text = f"IDS alert {alert}: at {stamp} {ip} scanned {count:,} ports on {h['host']}."
        else:
            count, what = w.rng.randrange(40, 5000), "How many requests did the firewall block in alert {a}?"
            text = (f"WAF alert {alert}: at {stamp} the firewall blocked {count:,} requests to {h['host']} from "
                    f"{ip} matching rule {w.rng.randrange(941000, 944999)}.")
        u = w.unit("security", h["part"], alert=alert, host=h["host"], ip=ip, count=count, count_q=what.format(a=alert),
                   kind=kind)
        u.data.update(f_ip=w.fact(u, "ip", ip, alert), f_count=w.fact(u, "count", count, alert),
                      f_host=w.fact(u, "host", h["host"], alert))
        h["events"].append(u.uid)
        w.say("security", None, text, (u.data["f_ip"], u.data["f_count"], u.data["f_host"]),
              assistant="Logged that alert. Want me to flag the source address if it shows up again?")


CAUSES = [
    ("an expired TLS certificate on the internal load balancer", [["expired"], ["certificate", "cert"]],
     "certificate renewal is now automated"),
    ("a connection pool exhausted by a retry storm", [["connection pool"], ["retry storm", "exhausted"]],
     "retries now back off exponentially"),
    ("a feature flag that accidentally disabled caching", [["feature flag"], ["caching", "cache"]],
     "flag changes now need a second reviewer"),
    ("a full disk on the log volume", [["disk"], ["full", "log volume"]], "log rotation was fixed"),
    ("a DNS record still pointing at a decommissioned host", [["dns"], ["decommissioned"]],
     "DNS records are now checked during decommissioning"),
    ("a memory leak in the image resizing worker", [["memory leak"]], "the worker was patched and restarts nightly"),
    ("clock skew between nodes that broke token validation", [["clock skew", "clock drift"]],
     "NTP monitoring was added"),
    ("a schema migration that locked the orders table", [["migration"], ["lock", "locked"]],
     "migrations now run online in batches"),
    ("an expired API key for the SMS provider", [["api key"], ["expired"]], "key expiry now pages the owner"),
    ("a runaway cron job that pinned every CPU", [["cron"]], "the job got a CPU quota"),
    ("a split-brain in the Redis cluster after a network partition", [["split-brain", "split brain"], ["partition"]],
     "the cluster now needs a quorum to fail over"),
    ("a corrupted search index after an interrupted reindex", [["corrupt", "corrupted", "corruption"], ["index"]],
     "reindexing now builds into a fresh index and swaps"),
    ("a bad deploy that shipped a null pointer in the checkout path", [["null pointer"]],
     "canary deploys now gate on checkout errors"),
]


def incidents(w: World, n: int) -> None:
    for i in range(n):
        h = _host(w, len(w.units.get("security", [])) + i)
        inc = w.unique(lambda: f"INC-{w.rng.randrange(1000, 9999)}")
        service, minutes = w.rng.choice(pools.SERVICES), w.rng.randrange(6, 240)
        cause, keys, fix = w.rng.choice(CAUSES)
        u = w.unit("incidents", h["part"], inc=inc, host=h["host"], service=service, minutes=minutes, cause=cause,
                   keys=keys, fix=fix)
        u.data.update(f_report=w.fact(u, "duration", minutes, inc), f_host=w.fact(u, "host", h["host"], inc),
                      f_cause=w.fact(u, "root_cause", cause, inc), f_fix=w.fact(u, "fix", fix, inc))
        h["events"].append(u.uid)
        pos = w.between(0.0, 0.9)
        w.say("incidents", pos, w.rng.choice([
            f"New incident {inc}: {service} on {h['host']} was degraded for {minutes} minutes.",
            f"We had {inc} today: {service} on {h['host']} was down for {minutes} minutes."]),
            (u.data["f_report"], u.data["f_host"]))
        w.say("incidents", min(0.995, pos + w.between(0.01, 0.08)),
              f"Postmortem for {inc} is done: the root cause was {cause}. Follow-up: {fix}.",
              (u.data["f_cause"], u.data["f_fix"]))


INFRA = {
    "nodes": ("The {c} Kubernetes cluster runs {v} worker nodes.", (3, 120), "How many worker nodes does the {c} Kubernetes cluster run?", "{v} worker nodes"),
    "max_connections": ("Postgres on {c} has max_connections set to {v}.", (100, 2000), "What is max_connections set to for Postgres on {c}?", "{v}"),
    "brokers": ("The {c} Kafka cluster has {v} brokers.", (3, 48), "How many Kafka brokers does {c} have?", "{v} brokers"),
    "redis_gb": ("Redis on {c} is capped at {v} GB of memory.", (2, 256), "How much memory is Redis on {c} capped at?", "{v} GB"),
    "cdn_ttl": ("The CDN cache TTL for {c} static assets is {v} seconds.", (30, 7200), "What is the CDN cache TTL for {c} static assets?", "{v} seconds"),
    "backup_days": ("Backups for {c} are kept for {v} days.", (7, 400), "How many days are backups for {c} kept?", "{v} days"),
}


def infrastructure(w: World, n: int) -> None:
    combos = [(f"{c}-{e}", k) for c in pools.CLUSTERS for e in pools.ENVS for k in INFRA]
    for part in w.alternate_parts(n):
        cluster, kind = w.draw("infra", combos)
        text, (lo, hi), question, answer = INFRA[kind]
        value = w.rng.randrange(lo, hi)
        u = w.unit("infrastructure", part, cluster=cluster, kind=kind, value=value,
                   question=question.format(c=cluster), answer=answer.format(v=f"{value:,}"))
        u.data["f"] = w.fact(u, kind, value, cluster)
        w.say("infrastructure", None, text.format(c=cluster, v=f"{value:,}"), (u.data["f"],))


PROBLEMS = [  # symptom, first suggestion, fix, fix key terms, first-suggestion key terms
    ("CI builds fail with 'could not resolve host artifacts.internal'", "clear the runner's build cache",
     "point the runner at the internal DNS resolver", [["dns"], ["resolver"]], [["build cache", "cache"]]),
    ("pods keep getting OOMKilled", "roll back to the previous image", "raise the container memory limit",
     [["memory limit"]], [["roll back", "rollback"]]),
    ("the test suite is flaky only on Mondays", "rerun the suite with more retries",
     "freeze the test clock instead of reading the real date", [["freeze", "frozen", "fake"], ["clock"]], [["retries", "retry"]]),
    ("notification emails land in spam", "rewrite the subject line", "add the missing DKIM record for the sending domain",
     [["dkim"]], [["subject line"]]),
    ("dashboards show no data after midnight UTC", "restart the metrics agent",
     "fix the timezone offset in the dashboard query", [["timezone", "time zone"]], [["restart"]]),
    ("deploys hang at ninety percent", "increase the deploy timeout", "delete the stale lock file left by a cancelled deploy",
     [["lock file", "lockfile"]], [["timeout"]]),
    ("users get logged out every few minutes", "ask users to clear their cookies",
     "share one session secret across all replicas", [["session secret"]], [["cookie"]]),
    ("the nightly ETL writes duplicate rows", "add a DISTINCT to the final query",
     "make the loader idempotent with an upsert on the event id", [["upsert", "idempotent"]], [["distinct"]]),
    ("latency spikes at the top of every hour", "add two more replicas", "stagger the hourly cache refresh jobs",
     [["stagger", "staggered", "spread out"]], [["replica"]]),
    ("the mobile app crashes on launch on older phones", "reinstall the app",
     "put the new font API call behind an OS version check", [["version check"]], [["reinstall"]]),
]


def problem_solving(w: World, n: int) -> None:
    combos = [(i, s) for i in range(len(PROBLEMS)) for s in pools.SERVICES]
    for part in w.alternate_parts(n):
        index, service = w.draw("problem", combos)
        symptom, step1, fix, fix_keys, step_keys = PROBLEMS[index]
        u = w.unit("problem_solving", part, service=service, symptom=symptom, step1=step1, fix=fix,
                   fix_keys=fix_keys, step_keys=step_keys)
        u.data.update(f_step1=w.fact(u, "first_suggestion", step1, service, role="assistant"),
                      f_fix=w.fact(u, "fix", fix, service, role="assistant"),
                      f_done=w.fact(u, "resolved", "yes", service))
        w.episode("problem_solving", None, [
            Pair(f"Problem with {service}: {symptom}. Any ideas?", f"Let's start simple: {step1}.",
                 assistant_facts=(u.data["f_step1"],)),
            Pair("Tried that, no luck. Same problem.", f"Then {fix}; that is the usual culprit here.",
                 assistant_facts=(u.data["f_fix"],)),
            Pair(f"That fixed it, {service} is healthy again.", "Great, glad it's sorted.", (u.data["f_done"],)),
        ])
