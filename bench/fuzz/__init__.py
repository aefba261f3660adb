"""Attack groups against the embedded memory service, run by bench/fuzz_service.py (issue 12).

One module per group (tool_attack, http_attack, writers, kill9, dataset_attack); outcome.py is
the one vocabulary every group counts in, target.py is how any group reaches the service.
"""
