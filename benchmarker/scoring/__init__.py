"""Scoring every suite shares: the normaliser, matching, abstention, the judges, the rubric, statistics,
retrieval and QA metrics, attribution, calibration. Nothing here knows a suite by name."""
