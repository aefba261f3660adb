"""Gold errata as data: `[dataset] errata = "FILE"`, a JSON-lines file of corrections to a dataset's gold.

    gold.py       what a suite gives to check corrections against: its questions' published gold and its turns
    check.py      read an errata file and check every line against that gold (one line naming FILE:LINE on a problem)
    corrected.py  a run's results lines as corrected, and the summary's `qa_corrected` and `errata` blocks
    derive.py     an errata file from a published and a corrected copy of a dataset (`errata derive`)

A run with errata judges each question against its published gold (as always) and, for a corrected answer, again
against the corrected one; both labels are kept in the results line, so every accuracy is reported twice.
"""
