"""Reporting: summary.json, report.{md,html}, plots, compare and sweep tables, computed from a run's files."""
