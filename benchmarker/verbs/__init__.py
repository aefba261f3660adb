"""The engines of the verbs other than `run` (estimate, judge-online, calibrate, oracle, score, baselines): typed
arguments in, typed results out; argparse lives only in benchmarker/commands/, which builds their arguments."""
