"""`mycelian-longmemeval view`: a local, read-only browser over run directories (in the spirit of
`inspect view`), or the same pages as a static bundle.

    catalog.py    the run directories, sweep points and calibrations under the served folders
    lines.py      JSONL read lazily: byte offsets and light fields, rescanned only where a file grew
    runinfo.py    manifest and summary of a run (the runs table, a run page's head)
    listing.py    the question list's filters, sort and pages (the query string)
    question.py   a question page: verdicts, attribution, evidence, hits, context
    decisions.py  one case's tool calls out of a large decisions.jsonl
    flips.py      the compare page: flips, McNemar, stage changes
    charts.py     the attribution chart (inline SVG geometry)
    board.py      the board: valid runs and result bundles ranked by suite and dataset (board_rows.py: a row)
    frontier.py   the board's figures: accuracy against cost and latency, the Pareto frontier
    links.py      server URLs or bundle-relative file links
    pages.py      every page rendered (Jinja2, autoescaped, masked)
    server.py     Starlette routes, token gate and security headers
    bundle.py     the static site
    cli.py        flags, binding, token
"""

from benchmarker.view.cli import add_arguments, run_view

__all__ = ["add_arguments", "run_view"]
