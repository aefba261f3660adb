"""The prompt files (*.txt), shipped inside the package as `benchmarker.prompts`."""
