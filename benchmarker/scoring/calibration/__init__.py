"""Calibration of a judge against published labels (`mycelian-longmemeval calibrate`).

labels.py reads the gold answers and the labelled answers, agreement.py computes agreement and
Cohen's kappa, report.py writes calibration.json / calibration.jsonl / report.{md,html} and finds
a judge's calibration for a run's report.
"""
