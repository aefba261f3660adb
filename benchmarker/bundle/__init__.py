"""Result bundles: a run's result files and `bundle.json` (their hashes, dataset, config, judge, versions) in one
`.tar.gz` that `export` writes, `verify` re-derives and `view` reads without unpacking (docs/publishing.md)."""
