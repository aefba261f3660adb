"""L1-L4: simple recall, multi-source synthesis, temporal reasoning, procedural memory."""

from __future__ import annotations

from datetime import timedelta

from benchmarker.suites.levels.data.spec import LevelBuilder, LevelSpec, rubric

BASE = ("factual_accuracy", "specificity", "confidence_calibration")
TEMPORAL = BASE + ("temporal_awareness",)
SOURCED = BASE + ("source_attribution",)
PEOPLE = [("Ilse", "Marchetti"), ("Tomas", "Abernathy"), ("Nadia", "Okonkwo"), ("Piet", "Lindqvist"),
          ("Renata", "Galbraith"), ("Osric", "Yamaguchi"), ("Wanjiru", "Delacroix"), ("Fergus", "Petrakis")]


def _long(d) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def level_1(seed: int) -> LevelSpec:
    b = LevelBuilder("L1", seed)
    r = b.rng
    obs = r.choice(["Halvorsen Ridge", "Capella Peak", "Mount Tessaly", "Corrib Heights", "Vossberg"])
    alt, year, scopes = r.randrange(1800, 3900), r.randrange(1952, 1999), r.randrange(3, 12)
    nick = r.choice(["Old Lantern", "the Kettle", "Big Iris", "Grandmother", "the Owl"])
    mirror = r.choice([2.4, 3.1, 3.6, 4.2, 6.5])
    first, last = r.choice(PEOPLE)
    visitors = r.randrange(40, 300) * 100
    b.add_session([
        f"Here's a short article I'm reading, please remember it. The {obs} Observatory sits {alt:,} metres above "
        f"sea level. It was founded in {year} by a consortium of three universities.",
        f"Today it operates {scopes} telescopes. The largest, nicknamed '{nick}', has a main mirror {mirror} metres across.",
        f"The current director is Dr. {first} {last}. About {visitors:,} visitors tour the site each year, mostly in summer.",
    ])
    b.ask("simple_recall", f"In what year was the {obs} Observatory founded?", str(year), rubric(numbers=[year], dimensions=BASE))
    b.ask("simple_recall", f"How high above sea level is the {obs} Observatory?", f"{alt:,} metres", rubric(numbers=[alt], dimensions=BASE))
    b.ask("simple_recall", "How many telescopes does the observatory operate?", str(scopes), rubric(numbers=[scopes], dimensions=BASE))
    b.ask("simple_recall", "What is the nickname of the observatory's largest telescope?", nick.replace("the ", ""),
          rubric([nick.replace("the ", "")], dimensions=BASE))
    b.ask("simple_recall", "How wide is the main mirror of the largest telescope?", f"{mirror} metres",
          rubric(numbers=[mirror], dimensions=BASE))
    b.ask("simple_recall", f"Who is the director of the {obs} Observatory?", f"Dr. {first} {last}",
          rubric([[f"{first} {last}", last]], dimensions=BASE))
    b.ask("simple_recall", "How many visitors tour the site each year?", f"About {visitors:,}",
          rubric(numbers=[visitors], dimensions=BASE))
    return b.spec("Simple recall", "Direct questions about single facts stated once in a short article.")


def level_2(seed: int) -> LevelSpec:
    b = LevelBuilder("L2", seed)
    r = b.rng
    product = r.choice(["Quillfeather e-reader", "Lumen desk lamp", "Tern smart kettle", "Harrow bike lock"])
    eu, ca = r.randrange(12, 90) * 100, r.randrange(5, 60) * 100
    supplier, city = r.choice([("Ostrava Optics", "Ostrava"), ("Kiln Displays", "Daegu"), ("Brightwell Panels", "Gdańsk")])
    mah, warranty = r.choice([1800, 2400, 3100, 4000]), r.choice([18, 24, 30, 36])
    s1 = b.add_session([f"Source one, the press release: the {product} launches in the EU and Canada. EU pre-orders "
                        f"have reached {eu:,} units."], days=0)
    s2 = b.add_session([f"Source two, an internal memo: Canadian pre-orders stand at {ca:,} units. The display comes "
                        f"from {supplier}, and the battery is {mah} mAh."], days=3)
    s3 = b.add_session([f"Source three, an email from customer support: {supplier} builds the displays at its factory "
                        f"in {city}. Support also confirmed the warranty is {warranty} months."], days=5)
    b.ask("synthesis", "How many pre-orders were there across the EU and Canada combined?", f"{eu + ca:,} units",
          rubric(numbers=[eu + ca], dimensions=BASE), (s1, s2))
    b.ask("synthesis", "Which company supplies the display, and in which city is its factory?", f"{supplier}, in {city}",
          rubric([supplier, city], dimensions=BASE), (s2, s3))
    b.ask("synthesis", "How many more pre-orders came from the EU than from Canada?", f"{abs(eu - ca):,}",
          rubric(numbers=[abs(eu - ca)], dimensions=BASE), (s1, s2))
    b.ask("synthesis", "What battery capacity was mentioned, and which source mentioned it?",
          f"{mah} mAh, in the internal memo", rubric([["memo"]], numbers=[mah], dimensions=SOURCED), (s2,))
    b.ask("synthesis", "How long is the warranty, and who confirmed it?", f"{warranty} months, confirmed by customer support",
          rubric([["support"]], numbers=[warranty], dimensions=SOURCED), (s3,))
    b.ask("synthesis", f"In which regions does the {product} launch?", "The EU and Canada",
          rubric([["EU", "European Union"], ["Canada"]], dimensions=BASE), (s1,))
    return b.spec("Multi-source synthesis", "Answers need facts combined from two or three separate sources.")


def level_3(seed: int) -> LevelSpec:
    b = LevelBuilder("L3", seed)
    r = b.rng
    planted = b.start + timedelta(days=r.randrange(2, 6))
    sprout = planted + timedelta(days=r.randrange(5, 12))
    harvest = planted + timedelta(weeks=r.randrange(9, 14))
    broke = sprout + timedelta(days=r.randrange(10, 30))
    fixed_after = r.randrange(2, 9)
    every1, every2 = r.choice([(2, 3), (3, 2), (1, 2), (2, 4)])
    change = sprout + timedelta(days=r.randrange(3, 8))
    s1 = b.add_session([f"Garden log: we planted the tomatoes on {_long(planted)}. We water every {every1} days for now."],
                       days=(planted - b.start).days)
    s2 = b.add_session([f"The first tomato seedlings came up on {_long(sprout)}."], days=(sprout - b.start).days)
    s3 = b.add_session([f"From {_long(change)} on we water every {every2} days instead."], days=(change - b.start).days)
    s4 = b.add_session([f"The water pump broke on {_long(broke)}. It was fixed {fixed_after} days later."],
                       days=(broke - b.start).days)
    s5 = b.add_session([f"We harvested the first tomatoes on {_long(harvest)}."], days=(harvest - b.start).days)
    b.ask("temporal", "How many days passed between planting the tomatoes and the first seedlings?",
          f"{(sprout - planted).days} days", rubric(numbers=[(sprout - planted).days], dimensions=TEMPORAL), (s1, s2))
    b.ask("temporal", "How many weeks after planting was the first harvest?", f"{(harvest - planted).days // 7} weeks",
          rubric(numbers=[(harvest - planted).days // 7], dimensions=TEMPORAL), (s1, s5))
    repaired = broke + timedelta(days=fixed_after)
    b.ask("temporal", "On what date was the water pump repaired?", _long(repaired),
          rubric([[f"{repaired:%Y-%m-%d}", f"{repaired:%B} {repaired.day}"]], dimensions=TEMPORAL), (s4,))
    mid = planted + timedelta(days=1)
    b.ask("temporal", f"How often did we water the tomatoes as of {_long(mid)}?", f"Every {every1} days",
          rubric(numbers=[every1], stale=[], dimensions=TEMPORAL), (s1, s3))
    b.ask("temporal", "How often do we water the tomatoes now?", f"Every {every2} days",
          rubric(numbers=[every2], dimensions=TEMPORAL), (s3,))
    b.ask("temporal", "On which day of the week did the first seedlings come up?", f"{sprout:%A}",
          rubric([f"{sprout:%A}"], dimensions=TEMPORAL), (s2,))
    return b.spec("Temporal reasoning", "Dates spread over sessions; answers need differences, order and as-of values.")


def level_4(seed: int) -> LevelSpec:
    b = LevelBuilder("L4", seed)
    r = b.rng
    svc = r.choice(["orders", "billing", "inventory", "loyalty"])
    bucket = r.choice(["cold-vault-eu", "nightly-archive", "backup-store-7", "deep-freeze"])
    jobs, minutes = r.choice([2, 4, 6, 8]), r.choice([10, 15, 20, 30])
    steps = [f"put the {svc} service into maintenance mode", "take a snapshot of the current volume",
             f"download the latest backup from the {bucket} bucket", "verify the backup's checksum",
             f"restore with {jobs} parallel jobs", f"run the smoke tests for {minutes} minutes",
             "take the service out of maintenance mode"]
    b.add_session([f"Here is our procedure for restoring the {svc} database. Step 1: {steps[0]}. Step 2: {steps[1]}. "
                   f"Step 3: {steps[2]}. Step 4: {steps[3]}.",
                   f"Continuing the restore procedure. Step 5: {steps[4]}. Step 6: {steps[5]}. Step 7, the last "
                   f"one: {steps[6]}."])
    b.ask("procedural", "What is step 3 of the restore procedure?", f"Download the latest backup from the {bucket} bucket",
          rubric([["download"], [bucket]], dimensions=BASE))
    b.ask("procedural", "What comes right after verifying the checksum?", f"Restore with {jobs} parallel jobs",
          rubric([["restore"]], numbers=[jobs], dimensions=BASE))
    b.ask("procedural", "How many steps does the restore procedure have?", "7", rubric(numbers=[7], dimensions=BASE))
    b.ask("procedural", "What has to happen right before downloading the backup?", "Take a snapshot of the current volume",
          rubric([["snapshot"]], dimensions=BASE))
    b.ask("procedural", "How long should the smoke tests run?", f"{minutes} minutes",
          rubric(numbers=[minutes], dimensions=BASE))
    b.ask("procedural", "What is the last step of the procedure?", "Take the service out of maintenance mode",
          rubric([["maintenance mode"], ["out of", "disable", "exit", "leave"]], dimensions=BASE))
    return b.spec("Procedural memory", "A multi-step procedure; questions ask for steps, their order and parameters.")
