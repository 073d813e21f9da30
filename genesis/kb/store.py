"""The knowledge base: verified GDDs, rule scripts, levels and lessons, searchable by meaning.

The source files under the KB root are the truth; the chromadb index (embedded under `<root>/chroma`,
or on a chroma server named by the `kb_server` setting) is derived from them. A manifest per index
(`<root>/chroma/manifest.json`, `manifest-server-<hash>.json` for a server) records each source file's size, mtime and hash: opening the KB
stats the files, hashes only those whose size or mtime changed, and re-indexes only the items whose
content changed (hand edits, a crashed commit, a new checkout). Layout (ids match
^[A-Za-z0-9][A-Za-z0-9_.-]*$):

    gdds/<id>.json             GddRecord: id, title, summary, text (embedded), concepts, rule_ids,
                               level_id, provenance, gdd (the full GDD)
    rules/<id>/rule.lua        the Lua rule script
    rules/<id>/meta.yaml       RuleMeta: id, title, description, params{name: {type, default,
                               description}}, concepts, provenance
    rules/<id>/test.yaml       the rule's tests (opaque here; optional)
    levels/<id>/level.json     an engine LevelConfig
    levels/<id>/meta.yaml      optional LevelMeta: title, text, concepts, provenance
    lessons/<id>.json          LessonRecord: id, text (embedded), stage, tags, provenance

Several processes may share one KB: writes hold an exclusive FileLock on `<root>/.lock`, reads a
shared one; a commit stages its files, moves them in under a journal (so even a killed process
leaves no half-added bundle behind) and only then updates the index. Processes on several
machines (where file locks cannot be trusted) hand their commits to one committer instead
(`use_committer`; the Ray batch backend runs it as an actor), and read without locks: every
source item is replaced by a rename, so a reader sees it whole, old or new.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from genesis.fileio import FileLock, atomic_write_json, dump_yaml, fsync_dir, parse_yaml
from genesis.kb.common import (COLLECTIONS, KBAuthError, KBCommitError, KBConflictError, KBError, KBIndexDamaged,
                               KBSourceError, KBUnavailableError)


INDEX_FORMAT = 2  # bump when documents/metadata derived from the sources or the manifest change
# A file modified this close to (or after) the manifest's scan may have changed again within the
# same mtime tick, so its content is hashed rather than trusted (git's "racy clean" rule).
RACY_NS = 2_000_000_000
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"  # filesystem-safe; seed levels use e.g. "FS-F"
UNAVAILABLE_STATUS = (502, 503, 504)  # what a gate or load balancer answers for a chroma server that is down
READ_ATTEMPTS = 5  # refreshes a reader asks for before it gives up on an index that never matches its manifest


# --- source records ------------------------------------------------------------------------------
class _Record(BaseModel):
    # extra keys are kept verbatim, so producers may store more than the index needs
    model_config = ConfigDict(extra="allow")


class GddRecord(_Record):
    id: str = Field(pattern=ID_PATTERN)
    title: str
    summary: str = ""
    text: str = Field(description="what gets embedded: brief, competency, mechanics in prose")
    concepts: list[str] = Field(default_factory=list)
    rule_ids: list[str] = Field(default_factory=list)
    level_id: str | None = None
    provenance: dict[str, Any] = Field(default_factory=dict)
    gdd: dict[str, Any] = Field(default_factory=dict)


class ParamSpec(_Record):
    type: str
    default: Any = None
    description: str = ""


class RuleMeta(_Record):
    id: str = Field(pattern=ID_PATTERN)
    title: str
    description: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    concepts: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)


class LevelMeta(_Record):
    title: str | None = None
    text: str | None = None
    concepts: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)


class LessonRecord(_Record):
    id: str = Field(pattern=ID_PATTERN)
    text: str
    stage: str | None = None
    tags: list[str] = Field(default_factory=list)
    provenance: dict[str, Any] = Field(default_factory=dict)


class RuleSource(BaseModel):
    id: str = Field(pattern=ID_PATTERN)
    lua: str
    meta: RuleMeta
    tests: Any = None  # str is written verbatim to test.yaml, anything else YAML-dumped


class LevelSource(BaseModel):
    id: str = Field(pattern=ID_PATTERN)
    level: dict[str, Any]
    meta: LevelMeta | None = None


class Bundle(BaseModel):
    """What one successful generation commits: a GDD with its rules and level, plus lessons."""

    gdd: GddRecord | None = None
    rules: list[RuleSource] = Field(default_factory=list)
    level: LevelSource | None = None
    lessons: list[LessonRecord] = Field(default_factory=list)


@dataclass
class Entry:
    """One KB item as read from its source files."""

    collection: str
    id: str
    document: str  # the embedded text
    metadata: dict[str, str | int | float | bool]
    data: dict[str, Any]  # gdds/lessons: the record; rules: meta, lua, tests; levels: level, meta
    files: dict[str, Path]


@dataclass
class Hit:
    id: str
    score: float  # cosine similarity clipped to 0..1
    metadata: dict[str, Any]
    document: str
    collection: str


@dataclass
class CommitResult:
    added: list[tuple[str, str]] = field(default_factory=list)
    replaced: list[tuple[str, str]] = field(default_factory=list)
    unchanged: list[tuple[str, str]] = field(default_factory=list)


# --- reading sources -----------------------------------------------------------------------------
def _scalar_metadata(values: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """chromadb metadata must be scalars: lists become comma strings, dicts JSON, None is dropped."""
    out: dict[str, str | int | float | bool] = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            out[key] = ",".join(str(v) for v in value)
        elif isinstance(value, dict):
            out[key] = json.dumps(value, sort_keys=True)
        else:
            out[key] = value
    return out


def _provenance_metadata(provenance: dict[str, Any]) -> dict[str, Any]:
    return {f"prov_{k}": v for k, v in provenance.items() if isinstance(v, (str, int, float, bool))}


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise KBSourceError(f"{path}: cannot read JSON: {err}") from None


def _load_yaml(path: Path) -> Any:
    try:
        return parse_yaml(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise KBSourceError(f"{path}: cannot read YAML: {err}") from None


def _validate(model: type[BaseModel], raw: Any, path: Path) -> Any:
    try:
        return model.model_validate(raw if raw is not None else {})
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in err.errors())
        raise KBSourceError(f"{path}: {problems}") from None


def _check_id(record_id: str, expected: str, path: Path) -> None:
    if record_id != expected:
        raise KBSourceError(f"{path}: id {record_id!r} does not match its file/folder name {expected!r}")


def _read_gdd(root: Path, item_id: str) -> Entry:
    path = root / "gdds" / f"{item_id}.json"
    rec: GddRecord = _validate(GddRecord, _load_json(path), path)
    _check_id(rec.id, item_id, path)
    meta = {"title": rec.title, "summary": rec.summary, "concepts": rec.concepts, "rule_ids": rec.rule_ids,
            "level_id": rec.level_id, **_provenance_metadata(rec.provenance)}
    return Entry("gdds", rec.id, rec.text or f"{rec.title}. {rec.summary}", _scalar_metadata(meta),
                 rec.model_dump(mode="json"), {"gdd": path})


def _read_rule(root: Path, item_id: str) -> Entry:
    folder = root / "rules" / item_id
    meta_path, lua_path, tests_path = folder / "meta.yaml", folder / "rule.lua", folder / "test.yaml"
    meta: RuleMeta = _validate(RuleMeta, _load_yaml(meta_path), meta_path)
    _check_id(meta.id, item_id, meta_path)
    try:
        lua = lua_path.read_text(encoding="utf-8")
    except OSError as err:
        raise KBSourceError(f"{lua_path}: {err}") from None
    tests = _load_yaml(tests_path) if tests_path.exists() else None
    params = "; ".join(f"{name} ({p.type}, default {p.default!r}): {p.description}" for name, p in meta.params.items())
    document = f"{meta.title}. {meta.description}"
    if params:
        document += f" Parameters: {params}."
    if meta.concepts:
        document += f" Concepts: {', '.join(meta.concepts)}."
    metadata = {"title": meta.title, "description": meta.description, "concepts": meta.concepts,
                "params": list(meta.params), **_provenance_metadata(meta.provenance)}
    files = {"lua": lua_path, "meta": meta_path}
    if tests_path.exists():
        files["tests"] = tests_path
    return Entry("rules", item_id, document, _scalar_metadata(metadata),
                 {"meta": meta.model_dump(mode="json"), "lua": lua, "tests": tests}, files)


def _read_level(root: Path, item_id: str) -> Entry:
    folder = root / "levels" / item_id
    level_path, meta_path = folder / "level.json", folder / "meta.yaml"
    level = _load_json(level_path)
    if not isinstance(level, dict):
        raise KBSourceError(f"{level_path}: expected a JSON object")
    meta: LevelMeta = _validate(LevelMeta, _load_yaml(meta_path), meta_path) if meta_path.exists() else LevelMeta()
    map_ref = level.get("map") or {}
    map_name = map_ref.get("name") or map_ref.get("file") or ("generated" if map_ref.get("generate") else None)
    switches = level.get("switches") or {}
    title = meta.title or level.get("name") or item_id
    document = meta.text or f"{title}. {level.get('description', '')} Map: {map_name}."
    metadata = {"title": title, "map": map_name, "rule_ids": [r.get("id") for r in level.get("rules", [])],
                "teams": len(level.get("teams", [])), "fog_of_war": switches.get("fog_of_war"),
                "production": switches.get("production"), "concepts": meta.concepts,
                **_provenance_metadata(meta.provenance)}
    files = {"level": level_path}
    if meta_path.exists():
        files["meta"] = meta_path
    return Entry("levels", item_id, document, _scalar_metadata(metadata),
                 {"level": level, "meta": meta.model_dump(mode="json")}, files)


def _read_lesson(root: Path, item_id: str) -> Entry:
    path = root / "lessons" / f"{item_id}.json"
    rec: LessonRecord = _validate(LessonRecord, _load_json(path), path)
    _check_id(rec.id, item_id, path)
    metadata = {"stage": rec.stage, "tags": rec.tags, **_provenance_metadata(rec.provenance)}
    return Entry("lessons", rec.id, rec.text, _scalar_metadata(metadata), rec.model_dump(mode="json"), {"lesson": path})


_READERS = {"gdds": _read_gdd, "rules": _read_rule, "levels": _read_level, "lessons": _read_lesson}
_FILE_COLLECTIONS = {"gdds", "lessons"}  # one <id>.json per item; the others use one folder per item


def _item_relpath(collection: str, item_id: str) -> Path:
    return Path(collection) / (f"{item_id}.json" if collection in _FILE_COLLECTIONS else item_id)


def _source_ids(root: Path, collection: str) -> list[str]:
    folder = root / collection
    if not folder.is_dir():
        return []
    if collection in _FILE_COLLECTIONS:
        return sorted(p.stem for p in folder.glob("*.json") if not p.name.startswith("."))
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _files_under(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts))


def _embedding():
    """The embedding function class; imported on first use, as it loads chromadb (a second of start-up)."""
    from genesis.kb.embedding import MiniLMEmbedding

    return MiniLMEmbedding


def scan_sources(root: Path) -> dict[str, tuple[int, int]]:
    """Every source file of every item: relative path -> (size, mtime in ns); stats only, no reads."""
    found: dict[str, tuple[int, int]] = {}

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as entries:
            for e in entries:
                if e.name.startswith("."):
                    continue
                if e.is_dir(follow_symlinks=False):
                    walk(e.path, f"{rel}/{e.name}")
                elif e.is_file():
                    st = e.stat()
                    found[f"{rel}/{e.name}"] = (st.st_size, st.st_mtime_ns)

    for collection in COLLECTIONS:
        folder = root / collection
        if not folder.is_dir():
            continue
        with os.scandir(folder) as entries:
            for e in entries:
                if e.name.startswith("."):
                    continue
                if collection in _FILE_COLLECTIONS:
                    if e.name.endswith(".json") and e.is_file():
                        st = e.stat()
                        found[f"{collection}/{e.name}"] = (st.st_size, st.st_mtime_ns)
                elif e.is_dir():
                    walk(e.path, f"{collection}/{e.name}")
    return found


def _item_of(rel: str) -> tuple[str, str]:
    """(collection, id) of the item a source file belongs to."""
    collection, name = rel.split("/")[:2]
    return collection, name[:-len(".json")] if collection in _FILE_COLLECTIONS else name


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources_hash(root: Path) -> str:
    """sha256 over every source file (path + content) plus the index format and embedding."""
    digest = hashlib.sha256(f"{INDEX_FORMAT}:{_embedding().name()}".encode())
    for collection in COLLECTIONS:
        folder = root / collection
        if folder.is_dir():
            for path in _files_under(folder):
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


# --- the chroma index ----------------------------------------------------------------------------
def parse_server(address: str) -> tuple[str, int, bool]:
    """`host:port`, `http://host:port` or `https://host[:port]` -> (host, port, ssl)."""
    from urllib.parse import urlsplit

    text = address.strip()
    parts = urlsplit(text if "://" in text else f"http://{text}")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise KBError(f"kb_server {address!r} is not a chroma server address (give host:port or http://host:port)")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 8000)
    except ValueError:
        raise KBError(f"kb_server {address!r} has an invalid port") from None
    return parts.hostname, port, parts.scheme == "https"


def server_client(address: str, token: str | None) -> Any:
    """chromadb's HttpClient for the server at `address`, sending `token` (the `kb_token` setting) with
    every request. Raises KBAuthError when the server refuses it, KBUnavailableError when it does not answer."""
    import chromadb
    from chromadb.config import Settings
    from chromadb.errors import ChromaAuthError

    host, port, ssl = parse_server(address)
    auth = {"chroma_client_auth_provider": "chromadb.auth.token_authn.TokenAuthClientProvider",
            "chroma_client_auth_credentials": token} if token else {}
    try:
        return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=Settings(anonymized_telemetry=False, **auth))
    except ChromaAuthError:
        raise refused(address, token) from None
    except Exception as err:  # chromadb checks the server on connect; any other failure means "not reachable"
        raise KBUnavailableError(f"cannot reach the KB's chroma server {address}: {err} "
                                 "(start one with `genesis kb serve`, or unset kb_server)") from None


def refused(address: str, token: str | None) -> KBAuthError:
    """The one-line message for a server that wants another token (never the token itself)."""
    if token:
        return KBAuthError(f"the KB's chroma server {address} refused the token in kb_token: "
                           "set the token `genesis kb serve` was started with")
    return KBAuthError(f"the KB's chroma server {address} needs a token: set kb_token in genesis.yaml "
                       "or GENESIS_KB_TOKEN to the token `genesis kb serve` was started with")


def check_server(address: str, token: str | None = None) -> None:
    """Raises KBUnavailableError unless the chroma server at `address` answers, KBAuthError unless it
    accepts `token`."""
    _Remote(server_client(address, token), address, token).heartbeat()


def manifest_name(server: str | None) -> str:
    """Each index (the embedded one, each chroma server) has a manifest of its own: a process using
    one index never makes another look stale, which would cost it a full rebuild."""
    if not server:
        return "manifest.json"
    return f"manifest-server-{hashlib.sha256(server.encode()).hexdigest()[:12]}.json"


class _Remote:
    """A chroma client or collection on a server: a call the server cannot answer (down, restarting,
    unreachable) raises KBUnavailableError, an infrastructure failure, not a KB fault."""

    def __init__(self, target: Any, server: str, token: str | None):
        self._target, self._server, self._token = target, server, token

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            import httpx

            from chromadb.errors import ChromaAuthError

            try:
                out = value(*args, **kwargs)
            except (httpx.TransportError, ConnectionError) as err:
                raise KBUnavailableError(f"the KB's chroma server {self._server} did not answer: {err}") from None
            except httpx.HTTPStatusError as err:  # a gate or balancer in front of a server that is down
                if err.response.status_code not in UNAVAILABLE_STATUS:
                    raise
                raise KBUnavailableError(f"the KB's chroma server {self._server} is unavailable "
                                         f"(HTTP {err.response.status_code})") from None
            except ChromaAuthError:
                raise refused(self._server, self._token) from None
            return _Remote(out, self._server, self._token) if hasattr(out, "query") and hasattr(out, "upsert") else out
        return call


class _Index:
    """One chroma client per index (folder or server) per process.

    Embedded: chromadb shares one System per path inside a process and caches HNSW segments in
    memory, so writes by another process stay invisible until the client is closed and reopened.
    The manifest's `generation` changes with every write; a mismatch triggers that reopen (on a
    chroma server it renews the collection handles, which a rebuild elsewhere replaces).
    """

    _instances: dict[tuple[Path, str | None, str | None], _Index] = {}
    _instances_guard = threading.Lock()

    def __init__(self, path: Path, server: str | None = None, token: str | None = None):
        self.path = path
        self.server = server
        self.token = token
        self.created: set[str] = set()  # collections this connection had to create
        self.client: Any = None
        self.generation: str | None = None
        self.collections: dict[str, Any] = {}
        self.guard = threading.RLock()

    @classmethod
    def for_path(cls, path: Path, server: str | None = None, token: str | None = None) -> _Index:
        with cls._instances_guard:
            return cls._instances.setdefault((path, server, token), cls(path, server, token))

    @property
    def name(self) -> str:
        return f"server {self.server}" if self.server else "embedded"

    def connect(self, generation: str | None, force: bool = False) -> None:
        if self.client is not None and generation == self.generation and not force:
            return
        import chromadb
        from chromadb.config import Settings

        self.close()
        self.created = set()
        if self.server:
            self.client = _Remote(server_client(self.server, self.token), self.server, self.token)
            self._open_collections()
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            try:
                self.client = chromadb.PersistentClient(path=str(self.path),
                                                        settings=Settings(anonymized_telemetry=False))
                self._open_collections()
            except Exception as err:  # chromadb's InternalError (sqlite: "database disk image is malformed"), ...
                raise self.damaged(err) from None
        self.generation = generation

    def _open_collections(self) -> None:
        ef = _embedding()()  # always explicit: chromadb's default would download a model
        existing = {getattr(c, "name", c) for c in self.client.list_collections()}
        self.created = set(COLLECTIONS) - existing
        self.collections = {
            name: self.client.get_or_create_collection(name, embedding_function=ef, configuration={"hnsw": {"space": "cosine"}})
            for name in COLLECTIONS
        }

    def close(self) -> None:
        if self.client is not None and hasattr(self.client, "close"):
            self.client.close()
        self.client, self.collections, self.generation = None, {}, None

    def forget(self) -> None:
        """Let go of an embedded index that cannot be read, so that the next connect opens it afresh."""
        from chromadb.api.shared_system_client import SharedSystemClient

        with suppress(Exception):  # closing a half-started client may fail the same way opening it did
            self.close()
        self.client, self.collections, self.generation = None, {}, None
        # chromadb caches one System per path before starting it: a failed start stays cached and
        # would be handed to the next client of this path
        SharedSystemClient._identifier_to_system.pop(str(self.path), None)
        SharedSystemClient._identifier_to_refcount.pop(str(self.path), None)

    def damaged(self, err: Exception) -> KBIndexDamaged:
        """The error for an index that failed with `err`; the next connect opens it afresh."""
        if not self.server:
            self.forget()
        return KBIndexDamaged(f"the knowledge base's index {self.path} is damaged ({str(err)[:200]}); it is "
                              "derived from the KB's files: `genesis kb rebuild` rebuilds it")

    def discard(self) -> None:
        """Delete an embedded index that cannot be read, files and all (it is rebuilt from the sources)."""
        self.forget()
        shutil.rmtree(self.path, ignore_errors=True)

    def missing_data(self) -> bool:
        """The index lost what the manifest says it holds (a deleted folder, a fresh server): its
        collections did not exist before this connection. (Counting items would load every segment.)"""
        return bool(self.created)


class Committer(Protocol):
    """The one writer of a KB shared by processes on several machines (see use_committer)."""

    def writing(self) -> AbstractContextManager[None]: ...
    def commit(self, bundle: Bundle, overwrite: bool) -> CommitResult: ...
    def ensure_fresh(self) -> None: ...


_committer: Committer | None = None


def use_committer(committer: Committer | None) -> None:
    """Every KnowledgeBase this process opens from now on commits through `committer` (None: itself,
    under file locks) and reads without file locks."""
    global _committer
    _committer = committer


# --- the knowledge base --------------------------------------------------------------------------
class KnowledgeBase:
    """Search, read and extend the KB at `root` (default: the workspace's, seeded on first use)."""

    def __init__(self, root: str | os.PathLike[str] | None = None, lock_timeout: float = 120.0,
                 server: str | None = None, committer: Committer | None = None, token: str | None = None):
        """`server`: a chroma server holding the index (default: the `kb_server` setting, else the
        embedded index); `token`: what that server requires (default: the `kb_token` setting);
        `committer`: who commits (default: the one set by use_committer, else this object under file locks)."""
        from genesis import workspace

        if root is None:
            root = workspace.ensure().kb
        self.root = Path(root).resolve()
        self.lock_timeout = lock_timeout
        self.chroma_dir = self.root / "chroma"
        self._txn_dir = self.root / ".txn"
        self.server = server if server is not None else workspace.setting("kb_server")
        self.manifest_path = self.chroma_dir / manifest_name(self.server)
        self._committer = committer if committer is not None else _committer
        token = token if token is not None else workspace.setting("kb_token")
        self._index = _Index.for_path(self.chroma_dir, self.server, token or None)
        self.root.mkdir(parents=True, exist_ok=True)
        self._ensure_fresh()

    # locking and freshness
    def _lock(self, shared: bool = False) -> AbstractContextManager[Any]:
        if shared and self._committer is not None:
            return nullcontext()  # items are replaced by renames: a lock-free reader sees each whole
        return FileLock(self.root / ".lock", timeout=self.lock_timeout, shared=shared)

    def _read_manifest(self) -> dict[str, Any] | None:
        try:
            manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        trusted = (isinstance(manifest, dict) and manifest.get("format") == INDEX_FORMAT
                   and manifest.get("embedding") == _embedding().name() and manifest.get("index") == self._index.name
                   and isinstance(manifest.get("files"), dict))
        return manifest if trusted else None

    def refresh(self) -> None:
        """Re-index whatever changed in the sources since the last look (hand edits, other writers)."""
        self._ensure_fresh()

    def _ensure_fresh(self) -> None:
        """Undo a crashed commit, then bring the index up to date with the sources."""
        if self._committer is not None:
            self._committer.ensure_fresh()
            with self._reading():
                return
        with self._lock(), self._index.guard:
            self._recover()
            self._freshen_locked()

    def _freshen_locked(self) -> None:
        """Re-indexes what changed since the manifest (all of it without a usable manifest)."""
        manifest = self._read_manifest()
        if manifest is None:
            self._rebuild_locked()
            return
        try:
            self._index.connect(manifest.get("generation"))
        except KBIndexDamaged:  # derived from the sources: rebuilt from them
            self._rebuild_locked()
            return
        if self._index.missing_data():
            self._rebuild_locked()
            return
        files, dirty = self._changes(manifest)
        if dirty:
            self._reindex(dirty)
        if dirty or files != manifest["files"]:
            self._write_manifest(files, new_generation=bool(dirty))

    def _changes(self, manifest: dict[str, Any]) -> tuple[dict[str, list], set[tuple[str, str]]]:
        """The sources' current file table and the items whose content differs from the manifest.
        Only files whose size or mtime changed (or that are racy) are read."""
        old, racy_from = manifest["files"], int(manifest.get("scanned_ns", 0)) - RACY_NS
        files: dict[str, list] = {}
        dirty: set[tuple[str, str]] = set()
        for rel, (size, mtime) in scan_sources(self.root).items():
            prev = old.get(rel)
            if prev and prev[0] == size and prev[1] == mtime and mtime < racy_from:
                files[rel] = prev
                continue
            files[rel] = [size, mtime, _file_digest(self.root / rel)]
            if not prev or prev[2] != files[rel][2]:
                dirty.add(_item_of(rel))
        dirty.update(_item_of(rel) for rel in old.keys() - files.keys())
        return files, dirty

    def _reindex(self, items: set[tuple[str, str]]) -> None:
        present = [(c, i) for c, i in sorted(items) if (self.root / _item_relpath(c, i)).exists()]
        for collection in COLLECTIONS:
            gone = [i for c, i in sorted(items) if c == collection and (c, i) not in present]
            if gone:
                self._index.collections[collection].delete(ids=gone)
        self._upsert([_READERS[c](self.root, i) for c, i in present])

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Shared lock + a client that has seen the latest write of any process."""
        for _ in range(READ_ATTEMPTS):
            with self._lock(shared=True), self._index.guard:
                manifest = self._read_manifest()
                if manifest is not None:
                    self._index.connect(manifest.get("generation"))
                    yield
                    return
            if self._committer is not None:  # the committer alone may rebuild
                self._committer.ensure_fresh()
            else:
                self._ensure_fresh()  # index deleted under us: rebuild (needs the exclusive lock)
        # e.g. the committer indexes on a chroma server and this process embedded (or the reverse)
        raise KBError(f"{self.manifest_path} does not describe the index this process uses ({self._index.name}) "
                      "even after a refresh: every process sharing the KB needs the same kb_server setting")

    def _write_manifest(self, files: dict[str, list], new_generation: bool = True) -> None:
        counts = {name: self._index.collections[name].count() for name in COLLECTIONS}
        generation = uuid.uuid4().hex if new_generation or self._index.generation is None else self._index.generation
        atomic_write_json(self.manifest_path, {
            "format": INDEX_FORMAT, "embedding": _embedding().name(), "index": self._index.name,
            "generation": generation, "counts": counts, "built": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "scanned_ns": time.time_ns(), "files": files,
        }, indent=None)
        self._index.generation = generation
        self._index.created = set()  # what the manifest describes is now in the index

    def _file_table(self, rels: list[str] | None = None, base: dict[str, list] | None = None) -> dict[str, list]:
        """The manifest's file table: every source file hashed, or `base` with the items under `rels` re-read."""
        table = {k: v for k, v in (base or {}).items()
                 if rels is None or not any(k == r or k.startswith(f"{r}/") for r in rels)}
        for rel, (size, mtime) in scan_sources(self.root).items():
            if rels is None or any(rel == r or rel.startswith(f"{r}/") for r in rels):
                table[rel] = [size, mtime, _file_digest(self.root / rel)]
        return table

    # index maintenance
    def rebuild(self) -> dict[str, int]:
        """Re-index every source file; returns the item count per collection."""
        if self._committer is not None:
            raise KBError("this process commits through a shared committer: rebuild the KB where it runs")
        with self._lock(), self._index.guard:
            self._recover()
            return self._rebuild_locked()

    def _rebuild_locked(self) -> dict[str, int]:
        files_before = scan_sources(self.root)
        entries = {name: [_READERS[name](self.root, i) for i in _source_ids(self.root, name)] for name in COLLECTIONS}
        self.manifest_path.unlink(missing_ok=True)
        try:
            self._index.connect(None, force=True)
            for name in COLLECTIONS:
                self._index.client.delete_collection(name)
        except KBIndexDamaged:
            self._index.discard()
        except KBError:
            raise
        except Exception:  # unreadable index (crash, other chromadb version), or a server without them yet
            if self.server:
                self._index.close()
            else:
                self._index.discard()
        self._index.connect(None, force=True)
        for name in COLLECTIONS:
            self._upsert(entries[name])
        self.chroma_dir.mkdir(parents=True, exist_ok=True)
        table = self._file_table()
        if {k: tuple(v[:2]) for k, v in table.items()} != files_before:
            raise KBError(f"{self.root}: the sources changed while the index was rebuilt (written without the KB's lock?)")
        self._write_manifest(table)
        return {name: len(items) for name, items in entries.items()}

    def _upsert(self, entries: list[Entry]) -> None:
        by_collection: dict[str, list[Entry]] = {}
        for entry in entries:
            by_collection.setdefault(entry.collection, []).append(entry)
        for name, items in by_collection.items():
            for start in range(0, len(items), 64):
                chunk = items[start:start + 64]
                self._index.collections[name].upsert(
                    ids=[e.id for e in chunk], documents=[e.document for e in chunk],
                    metadatas=[e.metadata or {"id": e.id} for e in chunk])

    # reading
    @staticmethod
    def _check_collection(collection: str) -> None:
        if collection not in COLLECTIONS:
            raise KBError(f"unknown collection {collection!r} (one of: {', '.join(COLLECTIONS)})")

    def search(self, collection: str, query_text: str, k: int = 5, where: dict[str, Any] | None = None) -> list[Hit]:
        """The `k` items most similar in meaning to `query_text`, best first."""
        self._check_collection(collection)
        from chromadb.errors import InternalError

        with self._reading():
            col = self._index.collections[collection]
            try:
                size = col.count()
                if size == 0 or k <= 0:
                    return []
                res = col.query(query_texts=[query_text], n_results=min(k, size), where=where,
                                include=["documents", "metadatas", "distances"])
            except InternalError as err:  # the storage failed (a bad filter is a ValueError)
                raise self._index.damaged(err) from None
        return [Hit(id=i, score=max(0.0, min(1.0, 1.0 - float(d))), metadata=dict(m or {}), document=doc or "", collection=collection)
                for i, d, m, doc in zip(res["ids"][0], res["distances"][0], res["metadatas"][0], res["documents"][0])]

    def with_provenance(self, collection: str, key: str, value: str | int | float | bool) -> list[str]:
        """Ids of the items whose provenance holds `key` = `value`, sorted."""
        self._check_collection(collection)
        with self._reading():
            found = self._index.collections[collection].get(where={f"prov_{key}": value}, include=[])
        return sorted(found["ids"])

    def get(self, collection: str, item_id: str) -> Entry | None:
        self._check_collection(collection)
        if not re.match(ID_PATTERN, item_id):
            return None
        with self._lock(shared=True):
            if not (self.root / _item_relpath(collection, item_id)).exists():
                return None
            return _READERS[collection](self.root, item_id)

    def list(self, collection: str) -> list[Entry]:
        self._check_collection(collection)
        with self._lock(shared=True):
            return [_READERS[collection](self.root, i) for i in _source_ids(self.root, collection)]

    def find(self, item_id: str) -> list[Entry]:
        """Every item with this id, whatever its collection."""
        return [e for name in COLLECTIONS if (e := self.get(name, item_id)) is not None]

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Holds the write lock across several calls, e.g. picking ids with unique_id and committing
        them, so no other process takes the same ids in between (commit inside it is re-entrant)."""
        with self._committer.writing() if self._committer is not None else self._lock():
            yield

    def unique_id(self, collection: str, stem: str) -> str:
        """`stem` made id-safe, suffixed -2, -3, ... until unused (re-check under commit's lock)."""
        self._check_collection(collection)
        base = re.sub(r"[^a-z0-9_.-]+", "-", stem.lower()).strip("-._") or "item"
        candidate, n = base, 1
        while (self.root / _item_relpath(collection, candidate)).exists():
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    # committing
    def commit(self, bundle: Bundle, overwrite: bool = False) -> CommitResult:
        """Add a bundle as one transaction: all of its files and index entries, or none.

        An item whose id exists with identical files is left alone; with different files it is a
        KBConflictError unless `overwrite`. The GDD's rule_ids / level_id must resolve to the
        bundle or the KB.
        """
        if self._committer is not None:
            return self._committer.commit(bundle, overwrite)
        with self._lock(), self._index.guard:
            self._recover()
            self._freshen_locked()
            self._check_references(bundle)
            txn = self._txn_dir / uuid.uuid4().hex
            try:
                return self._commit_locked(bundle, txn, overwrite)
            finally:
                shutil.rmtree(txn, ignore_errors=True)
                with suppress(OSError):
                    self._txn_dir.rmdir()  # only when no other transaction folder is left

    def _check_references(self, bundle: Bundle) -> None:
        items = _bundle_items(bundle)
        seen: set[tuple[str, str]] = set()
        for collection, item_id, _ in items:
            if (collection, item_id) in seen:
                raise KBCommitError(f"bundle holds {collection}/{item_id} twice")
            seen.add((collection, item_id))
        if bundle.gdd is not None:
            for rule_id in bundle.gdd.rule_ids:
                if ("rules", rule_id) not in seen and not (self.root / "rules" / rule_id).is_dir():
                    raise KBCommitError(f"GDD {bundle.gdd.id!r} names rule {rule_id!r}, which is neither in the bundle nor in the KB")
            level_id = bundle.gdd.level_id
            if level_id and ("levels", level_id) not in seen and not (self.root / "levels" / level_id).is_dir():
                raise KBCommitError(f"GDD {bundle.gdd.id!r} names level {level_id!r}, which is neither in the bundle nor in the KB")

    def _commit_locked(self, bundle: Bundle, txn: Path, overwrite: bool) -> CommitResult:
        staging, backup = txn / "new", txn / "old"
        result = CommitResult()
        plan: list[Path] = []
        for collection, item_id, write in _bundle_items(bundle):
            rel = _item_relpath(collection, item_id)
            write(staging / rel)
            target = self.root / rel
            if target.exists():
                if _same_files(staging / rel, target):
                    result.unchanged.append((collection, item_id))
                    continue
                if not overwrite:
                    raise KBConflictError(f"{collection}/{item_id} already exists with different content (commit with overwrite=True to replace it)")
                result.replaced.append((collection, item_id))
            else:
                result.added.append((collection, item_id))
            plan.append(rel)
        if not plan:
            return result
        journal = txn / "journal.json"
        atomic_write_json(journal, {"moves": [str(rel) for rel in plan]})
        try:
            for rel in plan:
                _place(staging / rel, self.root / rel, backup / rel)
        except BaseException as err:
            _undo(self.root, txn, plan)
            journal.unlink()
            raise KBCommitError(f"commit failed while moving files into place, nothing was changed: {err}") from err
        try:
            self._upsert([_READERS[rel.parts[0]](self.root, _rel_id(rel)) for rel in plan])
            self._write_manifest(self._file_table([rel.as_posix() for rel in plan], self._read_manifest()["files"]))
        except BaseException as err:
            _undo(self.root, txn, plan)
            journal.unlink()
            if isinstance(err, KBUnavailableError):  # no server to rebuild on: the next open rebuilds
                self.manifest_path.unlink(missing_ok=True)
                raise KBUnavailableError(f"commit failed while indexing, nothing was changed: {err}") from err
            try:
                self._rebuild_locked()
            except Exception as rebuild_err:
                self.manifest_path.unlink(missing_ok=True)  # the next open rebuilds
                raise KBCommitError(f"commit failed while indexing ({err}); files were restored but the index rebuild failed too: {rebuild_err}") from err
            raise KBCommitError(f"commit failed while indexing, nothing was changed: {err}") from err
        journal.unlink()  # the commit point: from here on recovery keeps the new files
        fsync_dir(txn)
        return result

    def _recover(self) -> None:
        """Roll back commits that died between the journal and the commit point (lock held)."""
        if not self._txn_dir.is_dir():
            return
        for txn in sorted(self._txn_dir.iterdir()):
            journal = txn / "journal.json"
            if journal.exists():
                try:
                    plan = [Path(p) for p in json.loads(journal.read_text(encoding="utf-8"))["moves"]]
                except (OSError, ValueError, KeyError) as err:
                    raise KBError(f"{journal}: unreadable commit journal ({err}); inspect {txn} by hand") from None
                _undo(self.root, txn, plan)
                self.manifest_path.unlink(missing_ok=True)  # the index may hold part of that commit
            shutil.rmtree(txn, ignore_errors=True)


# --- transaction helpers -------------------------------------------------------------------------
def _rel_id(rel: Path) -> str:
    return rel.stem if rel.parts[0] in _FILE_COLLECTIONS else rel.name


def _write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_yaml(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(obj, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _bundle_items(bundle: Bundle) -> list[tuple[str, str, Any]]:
    """(collection, id, writer(path)) for every item of the bundle; writers fill a staging path."""
    items: list[tuple[str, str, Any]] = []
    for rule in bundle.rules:
        def write_rule(folder: Path, rule: RuleSource = rule) -> None:
            _write_yaml(folder / "meta.yaml", rule.meta.model_dump(mode="json"))
            (folder / "rule.lua").write_text(rule.lua, encoding="utf-8")
            if isinstance(rule.tests, str):
                (folder / "test.yaml").write_text(rule.tests, encoding="utf-8")
            elif rule.tests is not None:
                _write_yaml(folder / "test.yaml", rule.tests)
        if rule.meta.id != rule.id:
            raise KBCommitError(f"rule {rule.id!r}: meta.id is {rule.meta.id!r}")
        items.append(("rules", rule.id, write_rule))
    if bundle.level is not None:
        level = bundle.level

        def write_level(folder: Path) -> None:
            _write_json(folder / "level.json", level.level)
            if level.meta is not None:
                _write_yaml(folder / "meta.yaml", level.meta.model_dump(mode="json"))
        items.append(("levels", level.id, write_level))
    if bundle.gdd is not None:
        gdd = bundle.gdd
        items.append(("gdds", gdd.id, lambda path: _write_json(path, gdd.model_dump(mode="json"))))
    for lesson in bundle.lessons:
        items.append(("lessons", lesson.id, lambda path, lesson=lesson: _write_json(path, lesson.model_dump(mode="json"))))
    return items


def _same_files(a: Path, b: Path) -> bool:
    files_a, files_b = _files_under(a), _files_under(b)
    if [p.relative_to(a) for p in files_a] != [p.relative_to(b) for p in files_b]:
        return False
    return all(x.read_bytes() == y.read_bytes() for x, y in zip(files_a, files_b))


def _place(staged: Path, target: Path, backup: Path) -> None:
    """Move one staged item into place, parking what it replaces in `backup`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        backup.parent.mkdir(parents=True, exist_ok=True)
        os.replace(target, backup)
    os.replace(staged, target)
    fsync_dir(target.parent)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _undo(root: Path, txn: Path, plan: list[Path]) -> None:
    """Reverse `_place` for every planned item, whatever step it reached (also after a crash)."""
    for rel in reversed(plan):
        staged, target, backup = txn / "new" / rel, root / rel, txn / "old" / rel
        if not staged.exists() and target.exists():  # the new item was moved in
            _remove(target)
        if backup.exists():
            os.replace(backup, target)
