"""Load run.toml into a `RunConfig`; every problem is reported at once, naming file, key and fix.

Loading is the only place the config is interpreted: after `load_config` returns, paths are
absolute, the dataset kind and file are resolved, offline model ids are filled in and `run_id`
is set, so no later stage re-derives any of it. A bad config raises one `ConfigError` listing
every problem, one per line, before anything starts (the CLI exits 2).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.main import IncEx
from pydantic_core import ErrorDetails

from benchmarker.config_schema import (
    DATASET_KEYS_AS_DUMPED,
    LEGACY_DATASET_KEYS,
    LONGMEMEVAL_VARIANTS,
    DatasetConfig,
    Problem,
    RunConfig,
    check_rules,
)
from benchmarker.errors import ConfigError, UserError
from benchmarker.redact import is_secret_name
from benchmarker.registry import (
    DATASET_KINDS,
    adversary_kinds,
    dataset_kinds_where,
    dataset_option_model,
    plugins_not_loaded,
    refuse_plugin_kind,
    suite,
)

try:  # the project supports 3.11+, where tomllib is stdlib; tomli is the same parser
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["RunConfig", "load_config", "canonical_hash"]

# Keys that change how a run executes but not what it computes: editing them resumes the same
# run instead of starting a new one. `phases` is here so `phases = ["qa", "eval"]` reuses an
# ingestion; everything else (data, selection, models, memory, judge) changes the run id.
NON_RESULT_KEYS: dict[str, IncEx | bool] = {   # pydantic's `exclude` shape: True or the sub-keys
    "run_id": True,
    "run": {"progress", "concurrency", "output_dir", "phases", "max_failures_in_a_row", "executor", "ray_address",
            "workers", "worker_cpus", "worker_gpus", "worker_memory_mb", "worker_resources", "case_retries",
            "progress_interval_s"},
    "retry": True,
    "prices": True,
    "eval": {"judge_retries"},
    "params": {"consistency_timeout_s"},
    # limits that fail a call, not settings of what it computes; the device changes speed only (embeddings
    # equal to float tolerance)
    "memory": {"auth_token_env", "vector_cache_mb", "embed_batch_size", "write_batch", "await_timeout_s", "call_timeout_s",
               "start_timeout_s", "max_result_mb", "device"},
    # caching changes what a call costs, not what the model is sent; an outside agent's label, credentials
    # and patience change how it is reached, not what it answers
    "agent": {"prompt_cache": True, "http": {"name", "header_env", "timeout_s", "max_attempts", "initial_backoff_s",
                                             "max_backoff_s"},
              "subprocess": {"name", "timeout_s", "close_grace_s"}},
    "provider": {"openai": {"api_key_env"}, "anthropic": {"api_key_env"}},
    "tracing": True,   # traces are a view of a run, not part of it
    "validity": True,  # thresholds that judge a run's files, not settings of what it computes
    "sweep": {"metric", "tie_break"},  # how the best point is chosen, not what any point computes
    "batch": True,     # a batch API is sent the same prompts as the synchronous one: it changes price and latency
    "baselines": True,  # read a finished run's questions again beside it; change no result of the run
    "multi_agent": {"analyst", "analyst_explain", "explain_max", "graders", "baseline_run"},  # read a run's answers, change none
}


def load_config(path: str | Path) -> RunConfig:
    """Read, validate and resolve a run.toml; raise one ConfigError listing every problem."""
    path = Path(path).expanduser()
    data = _read_bytes(path)
    raw = _parse_toml(path, data)
    problems = _find_secrets(raw)
    secret_locs = {p.loc for p in problems}
    problems += _kind_problems(raw)
    try:
        cfg = RunConfig.model_validate(_without(raw, secret_locs))
    except ValidationError as exc:
        problems += [_from_pydantic(err) for err in exc.errors()]
        raise _config_error(path, problems) from None
    if problems:   # an unknown kind: no suite to ask for its rules
        raise _config_error(path, problems)
    cfg, rule_problems, notes = check_rules(cfg)
    rule_problems += _suite_problems(cfg) + _suite_option_problems(cfg.dataset)
    errata_sha256, errata_problems = _errata_sha256(cfg.dataset, path.resolve().parent)
    rule_problems += errata_problems
    cfg._errata_sha256 = errata_sha256
    run_id = cfg.run_id or f"{safe_stem(path)}-{canonical_hash(cfg)[:8]}"
    cfg, path_problems = _resolve_paths(cfg, path.resolve().parent)
    problems += rule_problems + path_problems
    if problems:
        raise _config_error(path, problems)
    cfg = cfg.model_copy(update={"run_id": run_id})
    cfg._config_path = str(path.resolve())
    cfg._config_sha256 = hashlib.sha256(data).hexdigest()
    cfg._notes = tuple(notes)
    return cfg


# Keys added after run ids were first published: left out of the hash while at their defaults, so
# upgrading the harness keeps every existing config's run id (and so its resume) unchanged.
ADDED_KEYS: tuple[tuple[str, ...], ...] = (
    ("eval", "thresholds"), ("run", "max_failures_in_a_row"),
    ("memory", "vector_cache_mb"), ("memory", "embed_batch_size"), ("memory", "await_timeout_s"),
    ("self_improve", "p_value"), ("self_improve", "category_drop"), ("self_improve", "top_k_ladder"),
    ("self_improve", "alpha_ladder"), ("self_improve", "cadence_ladder"), ("self_improve", "max_distance"),
    ("agent", "type"), ("agent", "http"), ("agent", "subprocess"),
    ("memory", "preset"), ("memory", "mapping"), ("memory", "transport"), ("memory", "command"),
    ("memory", "args"), ("memory", "env"), ("online",), ("multi_agent",), ("memory", "call_timeout_s"),
    ("agent", "raw_entry"), ("agent", "context_update"), ("agent", "context_every_sessions"),
    ("memory", "device"), ("memory", "store_secrets"),
    ("run", "context_budget_tokens"),  # 0 (measured only) keeps the run ids of runs from before budgets
    ("dataset", "errata"),
)


def _drop_defaults(dumped: dict[str, Any]) -> dict[str, Any]:
    defaults = RunConfig().model_dump(mode="json", exclude=NON_RESULT_KEYS)  # compared like with like
    for path in ADDED_KEYS:
        parent, default_parent = dumped, defaults
        for key in path[:-1]:
            parent, default_parent = parent.get(key, {}), default_parent.get(key, {})
        if path[-1] in parent and parent[path[-1]] == default_parent.get(path[-1]):
            del parent[path[-1]]
    return dumped


def canonical_hash(cfg: RunConfig) -> str:
    """sha256 of the result-relevant config as sorted JSON (the default run id is built from it)."""
    dumped = _drop_defaults(cfg.model_dump(mode="json", exclude=NON_RESULT_KEYS))
    if cfg.errata_sha256:  # the corrections, not where the file lies, change what a run computes
        dumped["dataset"]["errata"] = f"sha256:{cfg.errata_sha256}"
    text = json.dumps(dumped, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- reading -------------------------------------------------------------------------------

def _read_bytes(path: Path) -> bytes:
    if not path.exists():
        raise ConfigError(f"config file not found: {path} (pass the path of a run.toml, "
                          "e.g. configs/quickstart.toml)")
    if not path.is_file():
        raise ConfigError(f"config path is not a file: {path}")
    return path.read_bytes()


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (bad byte at offset {exc.start}); "
                          "save the file as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message ends with "(at line L, column C)"
        raise ConfigError(f"{path}: TOML syntax error: {exc}. "
                          "See https://toml.io for the syntax (strings need quotes, "
                          "tables are [name], arrays are [a, b]).") from None
    except RecursionError:  # arrays or tables nested thousands deep: no config is shaped like that
        raise ConfigError(f"{path}: nested too deeply to read (arrays or inline tables thousands of levels "
                          "deep); a run config is a few tables of keys") from None


# --- secrets -------------------------------------------------------------------------------

def _find_secrets(raw: dict[str, Any], loc: tuple = ()) -> list[Problem]:
    """Credentials only come from the environment: a secret-looking key in the file is an error."""
    found: list[Problem] = []
    for key, value in raw.items():
        here = (*loc, key)
        if loc in (("prices",), ("agent", "http", "header_env")):  # model ids; header names whose env vars hold values
            continue
        if isinstance(value, dict):
            found += _find_secrets(value, here)
        elif is_secret_name(key):  # the names redact.py masks when writing: one list of credential names
            found.append(Problem(here, f"looks like a credential; secrets are never read from "
                                       f"the config file. Remove it and {_secret_fix(loc)}"))
    return found


def _secret_fix(table: tuple) -> str:
    if table in (("provider", "openai"), ("provider", "anthropic")):
        default = "OPENAI_API_KEY" if table[1] == "openai" else "ANTHROPIC_API_KEY"
        return (f"export the key in the environment variable named by "
                f"{key_path((*table, 'api_key_env'))} (default {default})")
    if table[:1] == ("provider",):
        return "use the AWS default credential chain (AWS_PROFILE, AWS_ACCESS_KEY_ID/" \
               "AWS_SECRET_ACCESS_KEY in the environment, or an instance role)"
    if table == ("memory",):
        return "export the token in the environment variable named by [memory].auth_token_env " \
               "(default MYCELIAN_API_KEY)"
    if table[:2] == ("agent", "http"):
        return "export it and name the variable in [agent.http.header_env] " \
               '(e.g. Authorization = "MY_AGENT_TOKEN"; the value is sent as that header)'
    if table[:2] == ("memory", "env"):
        return "export it in the harness's environment: a stdio memory server inherits it"
    if table[:2] == ("agent", "subprocess"):
        return "export it in the harness's environment: the agent process inherits it"
    return "export it in the environment and name the variable with an *_env key " \
           '(e.g. api_key_env = "OPENAI_API_KEY")'


def _without(raw: dict[str, Any], locs: set[tuple]) -> dict[str, Any]:
    out = {}
    for key, value in raw.items():
        if (key,) in locs:
            continue
        inner = {loc[1:] for loc in locs if loc[0] == key and len(loc) > 1}
        out[key] = _without(value, inner) if inner and isinstance(value, dict) else value
    return out


# --- pydantic errors -> key-named problems -------------------------------------------------

_EXPECTED = {
    "int_type": "an integer", "float_type": "a number", "string_type": "a string",
    "bool_type": "true or false", "model_type": "a table", "dict_type": "a table",
    "tuple_type": "an array", "list_type": "an array", "int_from_float": "an integer",
}
_TOML_TYPE = {bool: "boolean", int: "integer", float: "float", str: "string", dict: "table",
              list: "array"}


def _from_pydantic(err: ErrorDetails, owner: type[BaseModel] | None = None) -> Problem:
    loc, kind, value = tuple(err["loc"]), err["type"], err.get("input")
    # an *_env key holding something other than a NAME is probably a pasted secret: never echo it
    hide = isinstance(value, str) and any(isinstance(part, str) and part.endswith("_env") for part in loc)
    got = "got a value that is not a variable name" if hide else f"got {_show(value)}"
    if "credential" in str(err.get("msg", "")):  # a validator that found one never has it echoed
        got = "got a value not shown here"
    if kind == "extra_forbidden":
        noun = "unknown table" if isinstance(value, dict) else "unknown key"
        return Problem(loc, noun + _suggest(loc))
    if kind in _EXPECTED:
        return Problem(loc, f"{got}; expected {_EXPECTED[kind]}")
    if kind == "literal_error":
        allowed = err["ctx"]["expected"].replace("'", '"')
        return Problem(loc, f"{got}; allowed values: {allowed}")
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return Problem(loc, f"{got}; {_range(loc, err, owner)}")
    if kind == "missing":
        return Problem(loc, "required key is missing; add it (e.g. " + f"{loc[-1]} = 0.5)")
    if kind == "string_too_short":
        return Problem(loc, f"{got}; must not be empty")
    if kind == "value_error":
        return Problem(loc, f"{got}; {err['msg'].removeprefix('Value error, ')}")
    return Problem(loc, f"{got}; {err['msg']}")


def _kind_problems(raw: Mapping[str, Any]) -> list[Problem]:
    """`[dataset].kind` (or the `dataset = "..."` shorthand) must name a discovered suite."""
    data = raw.get("dataset")
    if data not in LONGMEMEVAL_VARIANTS:   # a kind whose plugin did not load: one line naming its entry point
        refuse_plugin_kind(data.get("kind") if isinstance(data, Mapping) else data)
    kinds = [f'"{k}"' for k in DATASET_KINDS]
    if isinstance(data, str) and data not in LONGMEMEVAL_VARIANTS and data not in DATASET_KINDS:
        return [Problem(("dataset",), f"got {_show(data)}; expected a LongMemEval variant (s, m, oracle), a dataset "
                        f"kind ({', '.join(DATASET_KINDS)}) or a [dataset] table{plugins_not_loaded()}")]
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if isinstance(kind, str) and kind not in DATASET_KINDS:
        return [Problem(("dataset", "kind"), f"got {_show(kind)}; allowed values: {', '.join(kinds[:-1])} or "
                        f"{kinds[-1]}{plugins_not_loaded()}")]
    return []


def _suite_problems(cfg: RunConfig) -> list[Problem]:
    """The rules that depend on the dataset's suite: which data keys it reads, whether LongMemEval's
    official judge applies, then the suite's own cross-key rules."""
    data, got = cfg.dataset, suite(cfg.dataset.kind)
    problems: list[Problem] = []
    if cfg.dataset_file and not got.data.reads_dataset_file:
        problems.append(Problem(("dataset_file",), f'is only read when [dataset].kind = '
                                f'"longmemeval" (kind is "{data.kind}"); remove it or fix the kind'))
    if data.file and not got.data.reads_file:
        kinds = [f'"{k}"' for k in dataset_kinds_where(lambda each: each.data.reads_file)]
        problems.append(Problem(("dataset", "file"), f"is only read by kinds {', '.join(kinds[:-1])} and "
                                f'{kinds[-1]} (kind is "{data.kind}"); remove it'))
    if cfg.eval.judge == "official" and got.official_judge is None:
        judged = ", ".join(f'"{k}"' for k in dataset_kinds_where(lambda each: each.official_judge is not None))
        problems.append(Problem(("eval", "judge"), f'"official" is the judge of kinds {judged}, which ship their '
                                f'own (kind is "{data.kind}"); use "llm" or "deterministic"'))
    from benchmarker.suites.base import config_problems  # loaded with `got`: importing config loads no suite

    return problems + config_problems(got, cfg, adversary_kinds)


def _errata_sha256(dataset: DatasetConfig, base: Path) -> tuple[str, list[Problem]]:
    """The `[dataset] errata` file's sha256 (the run id hashes it); a problem when the suite has no gold to
    correct or the file cannot be read. Its lines are checked against the dataset when the run plans it."""
    from benchmarker.errata.check import errata_sha256

    if not dataset.errata:
        return "", []
    if suite(dataset.kind).errata_gold is None:
        kinds = ", ".join(f'"{k}"' for k in dataset_kinds_where("errata_gold"))
        return "", [Problem(("dataset", "errata"), f'corrects the gold of kinds {kinds} (kind is '
                            f'"{dataset.kind}"); remove it')]
    file = base / Path(dataset.errata).expanduser()
    if not file.is_file():
        return "", [Problem(("dataset", "errata"), f"file not found: {file.resolve()}"
                            f"{_origin(dataset.errata, base)}; write one (docs/publishing.md, Gold errata)")]
    try:
        return errata_sha256(file), []
    except UserError as err:
        return "", [Problem(("dataset", "errata"), str(err))]


def _suite_option_problems(dataset: DatasetConfig) -> list[Problem]:
    """The `[dataset]` keys beyond the shared ones, checked by the suite's own options model
    (`Suite.data.options`); without one, each is an unknown key. A key that was shared before the suites'
    keys moved out (LEGACY_DATASET_KEYS) is still taken by any kind, checked by the model of the suite reading it."""
    options = suite(dataset.kind).data.options
    own = options.model_fields if options else {}
    given = dict(dataset.model_extra or {})
    legacy = {key: value for key, value in given.items() if key in LEGACY_DATASET_KEYS and key not in own}
    extra = {key: value for key, value in given.items() if key not in legacy}
    problems = _legacy_key_problems(legacy)
    if options is None or set(own) <= set(LEGACY_DATASET_KEYS):   # no key of its own: the words of before the move
        unknown = [key for key in extra if key not in own]
        problems += [Problem(("dataset", key), "unknown key" + _suggest(("dataset", key))) for key in unknown]
        extra = {key: value for key, value in extra.items() if key not in unknown}
    if options is None or not extra:
        return problems
    try:
        options.model_validate(extra)
    except ValidationError as exc:
        for err in exc.errors():
            loc = ("dataset", *err["loc"])
            if err["type"] == "extra_forbidden":
                valid = [*DATASET_KEYS_AS_DUMPED, *(k for k in options.model_fields if k not in DATASET_KEYS_AS_DUMPED)]
                close = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.6)
                hint = f"; did you mean `{close[0]}`?" if close else f"; valid keys here: {', '.join(valid)}"
                problems.append(Problem(loc, "unknown key" + hint))
            else:
                problems.append(_from_pydantic({**err, "loc": loc}, owner=options))
    return problems


def _legacy_key_problems(given: Mapping[str, Any]) -> list[Problem]:
    """Legacy `[dataset]` keys given to a kind that does not read them: checked as the suite reading them would."""
    problems = []
    for key, value in given.items():
        owner = dataset_option_model(key)
        if owner is None:
            continue
        try:
            owner.model_validate({key: value})
        except ValidationError as exc:
            problems += [_from_pydantic({**err, "loc": ("dataset", *err["loc"])}, owner=owner) for err in exc.errors()]
    return problems


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    type_name = _TOML_TYPE.get(type(value), type(value).__name__)
    shown = json.dumps(value, default=str) if not isinstance(value, list) else json.dumps(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{type_name} {shown}"


def _range(loc: tuple, err: ErrorDetails, owner: type[BaseModel] | None = None) -> str:
    """'allowed range 1..64' when both bounds are known, else pydantic's one-sided bound (`owner`: the model
    holding the key, where the config's own shape does not: a suite's options)."""
    owner = owner or (model_at(loc[:-1]) if isinstance(loc[-1], str) else None)
    field = owner.model_fields.get(loc[-1]) if owner else None
    bounds = {}
    for meta in field.metadata if field else ():
        for attr in ("ge", "gt", "le", "lt"):
            if getattr(meta, attr, None) is not None:
                bounds[attr] = getattr(meta, attr)
    low = bounds.get("ge", bounds.get("gt"))
    high = bounds.get("le", bounds.get("lt"))
    if low is not None and high is not None:
        exclusive = " (exclusive)" if "gt" in bounds or "lt" in bounds else ""
        return f"allowed range {low}..{high}{exclusive}"
    ops = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    bound = next((f"must be {ops[k]} {v}" for k, v in err.get("ctx", {}).items() if k in ops), None)
    return bound or err["msg"].replace("Input should be", "must be")


def _suggest(loc: tuple) -> str:
    key, owner = str(loc[-1]), model_at(loc[:-1])
    valid = list(owner.model_fields) if owner else []
    if owner is DatasetConfig:   # the keys that moved into suites' options are still named, as before
        valid = list(DATASET_KEYS_AS_DUMPED)
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    elsewhere = [t for t in _tables_with_key(key) if t != loc[:-1]]
    if elsewhere:
        where = f"[{'.'.join(elsewhere[0])}]" if elsewhere[0] else "the top level"
        return f"; `{key}` belongs in {where}"
    if close:
        return f"; did you mean `{close[0]}`?"
    return f"; valid keys here: {', '.join(valid)}" if valid else ""


def _tables_with_key(key: str, table: tuple = ()) -> list[tuple]:
    owner = model_at(table)
    if owner is None:
        return []
    found = [table] if key in owner.model_fields or (owner is DatasetConfig and key in LEGACY_DATASET_KEYS) else []
    for name in owner.model_fields:
        if model_at((*table, name)) is not None:
            found += _tables_with_key(key, (*table, name))
    return found


def _config_error(path: Path, problems: list[Problem]) -> ConfigError:
    lines = [f"  {key_path(p.loc, top_level_note=True)}: {p.text}" for p in problems]
    noun = "problem" if len(problems) == 1 else "problems"
    return ConfigError(f"{path}: {len(problems)} config {noun}:\n" + "\n".join(lines))


# --- paths ---------------------------------------------------------------------------------

def safe_stem(path: Path) -> str:
    """A config file's stem as it starts a run id (`run`'s and `replay`'s): path-safe, at most 100 characters."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-.") or "run"
    return stem[:100]


def _resolve_paths(cfg: RunConfig, base: Path) -> tuple[RunConfig, list[Problem]]:
    """Make every path absolute (relative to the config's directory) and find the dataset file."""

    def absolute(value: str) -> str:
        return str((base / Path(value).expanduser()).resolve()) if value else ""

    repo, top_file = absolute(cfg.dataset_repo_path), absolute(cfg.dataset_file)
    dataset_file, problems = _resolve_dataset(
        cfg.dataset, cfg.dataset_file, (repo, _origin(cfg.dataset_repo_path, base)),
        (top_file or absolute(cfg.dataset.file), _origin(cfg.dataset_file or cfg.dataset.file, base)))
    memory = cfg.memory.model_copy(update={"db_path": absolute(cfg.memory.db_path),
                                           "mapping": absolute(cfg.memory.mapping),
                                           "command": _command_path(cfg.memory.command, base)})
    problems = problems + _mapping_problems(memory, cfg.agent)
    run = cfg.run.model_copy(update={"output_dir": absolute(cfg.run.output_dir)})
    dataset = cfg.dataset.model_copy(update={"file": dataset_file, "errata": absolute(cfg.dataset.errata)})
    online = cfg.online.model_copy(update={"run_dir": absolute(cfg.online.run_dir)})
    multi_agent = cfg.multi_agent.model_copy(update={"baseline_run": absolute(cfg.multi_agent.baseline_run)})
    if cfg.multi_agent.baseline_run and not (Path(multi_agent.baseline_run) / "results.jsonl").is_file():
        problems.append(Problem(("multi_agent", "baseline_run"), f'no results.jsonl in "{multi_agent.baseline_run}"'
                                f'{_origin(cfg.multi_agent.baseline_run, base)}; point it at a finished run (or sweep point)'))
    if cfg.online.source == "run_dir" and not (Path(online.run_dir) / "manifest.json").is_file():
        problems.append(Problem(("online", "run_dir"), f'needs a finished run directory when [online].source = '
                                f'"run_dir"; no manifest.json in "{online.run_dir or cfg.online.run_dir}"'
                                f'{_origin(cfg.online.run_dir, base)}'))
    return cfg.model_copy(update={
        "dataset_repo_path": repo, "dataset_file": top_file, "dataset": dataset,
        "memory": memory, "run": run, "online": online, "multi_agent": multi_agent}), problems


def _command_path(command: str, base: Path) -> str:
    """A relative command with a folder in it (`../.venv-servers/kuzu/bin/kuzu-memory`) is a file next to
    the config: made absolute, since the server starts in each case's own folder. A bare name (`npx`)
    stays a PATH lookup."""
    if not command or "/" not in command or Path(command).expanduser().is_absolute():
        return str(Path(command).expanduser()) if command.startswith("~") else command
    return os.path.normpath(base / command)  # not resolve(): a venv's bin/python is a symlink that must stay one


def _origin(written: str, base: Path) -> str:
    """How a resolved path was written, so the user can find it in the file."""
    if not written or Path(written).expanduser().is_absolute():
        return ""
    return f' (written "{written}", relative to the config\'s folder {base})'


def _resolve_dataset(dataset: DatasetConfig, top_file: str, repo_at: tuple[str, str], file_at: tuple[str, str]
                     ) -> tuple[str, list[Problem]]:
    """The LongMemEval / fact-case file to read: explicit file first, else found in the clone
    (`top_file`: the top-level `dataset_file` as written)."""
    from benchmarker.suites.longmemeval.data import find_longmemeval_file
    from benchmarker.suites.longmemeval.options import LongMemEvalOptions

    (repo, repo_origin), (file, file_origin) = repo_at, file_at
    file_key = ("dataset_file",) if top_file else ("dataset", "file")
    if repo and not Path(repo).is_dir():
        return "", [Problem(("dataset_repo_path",), f"not a directory: {repo}{repo_origin}; point "
                            "it at your LongMemEval clone")]
    if file:
        if suite(dataset.kind).data.finds_data_at(Path(file)):
            return file, []
        hint = _missing_file_hint(dataset.kind, top_file, bool(repo), file)
        return "", [Problem(file_key, f"file not found: {file}{file_origin}; {hint}")]
    if not suite(dataset.kind).data.reads_dataset_file:
        return "", []
    if not repo:
        return "", [Problem(("dataset", "kind"), 'is "longmemeval" but no data is named; set '
                            'dataset_repo_path = "/path/to/LongMemEval" or dataset_file')]
    variant = LongMemEvalOptions.of(dataset).variant
    found, tried = find_longmemeval_file(Path(repo), variant)
    if found:
        return str(found), []
    return "", [Problem(("dataset_repo_path",), f"no LongMemEval_{variant.upper()} "
                        f"file in {repo}{repo_origin}; tried {', '.join(p.name for p in tried[:2])} "
                        f"in {repo}/data and {repo}. Download the files (huggingface.co/datasets/"
                        "xiaowu0162/longmemeval-cleaned) into data/, or set dataset_file")]


def _missing_file_hint(kind: str, top_file: str, has_repo: bool, file: str) -> str:
    """A fix that leads to a config that loads: the suite's own for [dataset].file, else LongMemEval's."""
    if not top_file:
        return suite(kind).data.missing_file_hint(file)
    if has_repo:
        return "fix the path, or remove it to find the file under dataset_repo_path"
    return 'fix the path, or remove it and set dataset_repo_path = "/path/to/LongMemEval" (your clone)'


# --- key paths -------------------------------------------------------------------------------

def model_at(table: tuple) -> type[BaseModel] | None:
    """The model behind a TOML table path, e.g. ("provider", "openai") -> OpenAIConfig."""
    cls: Any = RunConfig
    i = 0
    while i < len(table):
        field = cls.model_fields.get(table[i]) if isinstance(table[i], str) else None
        if field is None:
            return None
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            cls, i = ann, i + 1
        elif get_origin(ann) is dict and i + 1 < len(table):  # [prices."model-id"]
            cls, i = get_args(ann)[1], i + 2
        else:
            return None
    return cls


def key_path(loc: tuple, top_level_note: bool = False) -> str:
    """("provider", "openai", "base_url") -> "[provider.openai].base_url"."""
    split = 0
    for j in range(len(loc) - 1, 0, -1):
        prefix = loc[:j]
        if all(isinstance(x, str) for x in prefix) and (model_at(prefix) or prefix == ("prices",)):
            split = j
            break
    tables, rest = loc[:split], loc[split:]
    key = "".join(f"[{x}]" if isinstance(x, int) else (f".{x}" if i else str(x))
                  for i, x in enumerate(rest))
    if not tables:
        return f"{key} (top level)" if top_level_note else key
    quoted = [t if re.fullmatch(r"[A-Za-z0-9_-]+", t) else json.dumps(t) for t in tables]
    return f"[{'.'.join(quoted)}].{key}"


def _mapping_problems(memory, agent) -> list[Problem]:
    """Load the preset or mapping file now, so a broken mapping fails before any work; the agent's
    own tool list (when set) must include the mapping's write tool."""
    from benchmarker.errors import ConfigError
    from benchmarker.memory.tool_mapping import load_mapping

    try:
        mapping = load_mapping(memory.mapping or memory.preset)
    except ConfigError as err:
        return [Problem(("memory", "mapping" if memory.mapping else "preset"), str(err))]
    if mapping.write is not None and "tools" in agent.model_fields_set and mapping.write.tool not in agent.tools:
        return [Problem(("agent", "tools"), f'must include "{mapping.write.tool}", the write tool of '
                        f"{mapping.source} (the agent cannot write memory without it)")]
    return []
