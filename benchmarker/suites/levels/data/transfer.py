"""L9-L12: causal reasoning, counterfactuals, a novel skill, far transfer."""

from __future__ import annotations

import math

from benchmarker.suites.levels.data.basic import BASE
from benchmarker.suites.levels.data.spec import LevelBuilder, LevelSpec, rubric


def level_9(seed: int) -> LevelSpec:
    b = LevelBuilder("L9", seed)
    r = b.rng
    customer = r.choice(["Marlowe Hotel", "Cafe Osterlund", "Brindle & Co", "the Tidewater Inn"])
    orders, hours, penalty = r.randrange(20, 90), r.randrange(2, 7), r.randrange(8, 40) * 50
    b.add_session([
        "Let me walk you through what went wrong at the bakery this week. On Monday the walk-in freezer's door seal cracked.",
        "Warm air kept leaking in, so the freezer's compressor ran non-stop. On Wednesday the compressor overheated and "
        "tripped the breaker, and that breaker also feeds the proofing cabinet.",
        f"Without the proofing cabinet, Thursday's dough did not rise in time, so the {orders} sourdough orders for "
        f"{customer} were delivered {hours} hours late. {customer} charged a late-delivery penalty of ${penalty:,}.",
    ])
    b.ask("causal", f"What was the root cause of the late delivery to {customer}?", "The cracked door seal on the walk-in freezer",
          rubric([["door seal", "seal"]], dimensions=BASE))
    b.ask("causal", "Why did the proofing cabinet lose power?",
          "The overheating compressor tripped the breaker that also feeds the proofing cabinet",
          rubric([["breaker"], ["compressor"]], dimensions=BASE))
    b.ask("causal", "Why did the compressor overheat?", "Warm air leaked in through the cracked seal, so it ran non-stop",
          rubric([["warm air", "seal", "non-stop", "constantly", "continuously"]], dimensions=BASE))
    b.ask("causal", "How much did the chain of failures cost in penalties?", f"${penalty:,}",
          rubric(numbers=[penalty], dimensions=BASE))
    b.ask("causal", "Which single repair, done on Monday, would most likely have prevented the penalty?",
          "Replacing the freezer's cracked door seal", rubric([["door seal", "seal"]], dimensions=BASE))
    b.ask("causal", "How late were the sourdough orders?", f"{hours} hours late", rubric(numbers=[hours], dimensions=BASE))
    return b.spec("Causal reasoning", "A chain of causes told in order; questions ask why, and what would have broken the chain.")


def level_10(seed: int) -> LevelSpec:
    b = LevelBuilder("L10", seed)
    r = b.rng
    price = r.choice([180, 240, 275, 320, 450])
    attendees = r.randrange(8, 20)
    budget = (attendees * price // 500 + r.randrange(1, 5)) * 500
    annual = attendees * price - r.randrange(3, 15) * 50
    travel, margin = r.randrange(35, 70), r.choice([6, 9, 12, 18, 21, 24])
    depart = 8 * 60 + r.randrange(0, 20)
    conn = depart + travel + margin
    more_budget = budget + r.randrange(3, 9) * 500
    extra_people = r.randrange(1, 6)
    # the answer must not be a number the question itself contains, or echoing the question would score
    extra_cost = next(c for c in r.sample([20, 35, 50, 75], 4) if budget // (price + c) != c)
    b.add_session([
        f"The design team has a software budget of ${budget:,}. Each licence costs ${price}.",
        f"{attendees} people attend the workshop and they bought one licence per attendee. The vendor also offers an "
        f"annual team plan for ${annual:,}.",
        f"Separate story: Mira's train left at {depart // 60:02d}:{depart % 60:02d} and takes {travel} minutes to reach "
        f"Central. Her connection left Central at {conn // 60:02d}:{conn % 60:02d}, and she made it.",
    ])
    b.ask("counterfactual", f"If the budget had been ${more_budget:,}, how many licences could it have bought?",
          f"{more_budget // price} licences", rubric(numbers=[more_budget // price], dimensions=BASE))
    b.ask("counterfactual", f"If each licence had cost ${extra_cost} more, how many could the original budget have bought?",
          f"{budget // (price + extra_cost)} licences", rubric(numbers=[budget // (price + extra_cost)], dimensions=BASE))
    late_ok = margin >= 15
    b.ask("counterfactual", "If Mira's train had left 15 minutes later, would she still have made her connection?",
          f"{'Yes' if late_ok else 'No'}: she had {margin} minutes to spare.",
          rubric(numbers=[margin], yes_no="yes" if late_ok else "no", dimensions=BASE))
    need = (attendees + extra_people) * price
    b.ask("counterfactual", f"If {extra_people} more people had joined the workshop, would the budget still have covered a "
          "licence for everyone?", f"{'Yes' if need <= budget else 'No'}: {attendees + extra_people} licences cost ${need:,} "
          f"against a budget of ${budget:,}.", rubric(numbers=[need], yes_no="yes" if need <= budget else "no", dimensions=BASE))
    saved = attendees * price - annual
    b.ask("counterfactual", "Had they taken the annual team plan instead of one licence per attendee, how much would they "
          "have saved?", f"${saved:,}", rubric(numbers=[saved], dimensions=BASE))
    return b.spec("Counterfactual reasoning", "What-if questions that change one stated fact and follow the consequences.")


REGIONS = [("NE", "Northeast"), ("SW", "Southwest"), ("CE", "Central"), ("CO", "Coastal"), ("HL", "Highlands")]
TEAMS = [("KX", "Kitchen"), ("LG", "Logistics"), ("FN", "Finance"), ("PO", "People Ops"), ("FL", "Facilities")]


def _code(region: str, prio: int, team: str, number: int) -> str:
    return f"{region}-P{prio}-{team}-{number:04d}"


def level_11(seed: int) -> LevelSpec:
    b = LevelBuilder("L11", seed)
    r = b.rng
    regions, teams = r.sample(REGIONS, 3), r.sample(TEAMS, 3)
    hours = sorted(r.sample([2, 4, 8, 12, 24, 48, 72, 168], 3))
    b.add_session([
        "I'll teach you our ticket code format: REGION-PRIORITY-TEAM-NUMBER, for example "
        f"{_code(regions[0][0], 2, teams[0][0], 412)}.",
        "Region codes: " + ", ".join(f"{c} means {n}" for c, n in regions) + ". Team codes: "
        + ", ".join(f"{c} is the {n} team" for c, n in teams) + ".",
        f"P1 must be fixed within {hours[0]} hours, P2 within {hours[1]} hours and P3 within {hours[2]} hours. "
        "The number is always four digits, and only the region codes I listed are valid.",
    ])
    (rc, rn), (tc, tn) = r.choice(regions), r.choice(teams)
    b.ask("novel_skill", f"Which region is ticket {_code(rc, 3, teams[1][0], r.randrange(1000, 9999))} from?", rn,
          rubric([rn], dimensions=BASE))
    prio = r.randrange(1, 4)
    b.ask("novel_skill", f"Within how many hours must ticket {_code(regions[1][0], prio, tc, r.randrange(1000, 9999))} be fixed?",
          f"{hours[prio - 1]} hours", rubric(numbers=[hours[prio - 1]], dimensions=BASE))
    b.ask("novel_skill", f"Which team owns ticket {_code(regions[2][0], 1, tc, r.randrange(1000, 9999))}?", f"The {tn} team",
          rubric([tn], dimensions=BASE))
    code = _code(rc, 1, tc, 77)
    b.ask("novel_skill", f"Write the ticket code for a P1 issue in the {rn} region for the {tn} team, number 77.", code,
          rubric([code], dimensions=BASE))
    bad = _code("ZQ", 2, teams[2][0], r.randrange(1000, 9999))
    b.ask("novel_skill", f"Is {bad} a valid ticket code?", "No: ZQ is not one of the listed region codes.",
          rubric([["region", "ZQ"]], yes_no="no", dimensions=BASE))
    return b.spec("Novel skill", "A made-up code format is taught; questions decode and encode new codes with it.")


def level_12(seed: int) -> LevelSpec:
    b = LevelBuilder("L12", seed)
    r = b.rng
    covers, ratio, prep = r.randrange(12, 25), r.randrange(3, 6), r.choice([10, 15, 20])
    b.add_session([
        "Here are the staffing rules from my restaurant days. A line cook can handle at most "
        f"{covers} covers per hour, so round up when you divide.",
        f"For every {ratio} line cooks (or part of that) you need one expediter.",
        f"Prep starts {prep} minutes before service for every 50 covers expected per hour (or part of 50).",
    ])
    tickets = r.randrange(100, 400)
    agents = math.ceil(tickets / covers)
    leads = math.ceil(agents / ratio)
    b.ask("far_transfer", f"A help desk uses the same rules, with tickets per hour for covers, agents for line cooks and shift "
          f"leads for expediters. With {tickets} tickets per hour, how many agents and shift leads does it need?",
          f"{agents} agents and {leads} shift leads", rubric(numbers=[agents, leads], dimensions=BASE))
    visitors = r.randrange(120, 600)
    b.ask("far_transfer", f"A museum applies the prep rule, with visitors per hour in place of covers. With {visitors} "
          "visitors per hour, how many minutes before opening should set-up start?",
          f"{prep * math.ceil(visitors / 50)} minutes", rubric(numbers=[prep * math.ceil(visitors / 50)], dimensions=BASE))
    staff = r.randrange(4, 15)
    b.ask("far_transfer", f"Under the same rules, what is the most tickets per hour a help desk with {staff} agents can handle?",
          f"{staff * covers} tickets per hour", rubric(numbers=[staff * covers], dimensions=BASE))
    orders = r.randrange(150, 700)
    sup = math.ceil(math.ceil(orders / covers) / ratio)
    b.ask("far_transfer", f"A warehouse maps packers to line cooks, orders per hour to covers and supervisors to expediters. "
          f"With {orders} orders per hour, how many supervisors does it need?", f"{sup} supervisors",
          rubric(numbers=[sup], dimensions=BASE))
    busy = r.randrange(60, 300)
    b.ask("far_transfer", f"If a cook could handle twice as many covers per hour, how many line cooks would a {busy}-cover "
          "hour need?", f"{math.ceil(busy / (2 * covers))} line cooks",
          rubric(numbers=[math.ceil(busy / (2 * covers))], dimensions=BASE))
    return b.spec("Far transfer", "Rules learned in one domain applied to different domains described in the questions.")
