"""An impact export's walk with its state in SQLite, not the Python heap: the web process stays flat however many rows.

`impact_walk` answers what `impact.impact_traverse` does (same distances, parents, paths, order, roll-up), for
the reports. Each node reached is a row of a private SQLite database (`sqlite3.connect("")`): SQLite holds its
pages in its own cache up to `IMPACT_WALK_CACHE_KB` and writes the rest to a temporary file it unlinked on
opening, so a small walk never touches the disk and a large one costs the cache, whatever its size; the
file's space is freed when `ImpactWalk.close` closes the database (the response ends, fails, or its client
goes), or with the process. What Python holds is one hop chunk's answer (`WALK_CHUNK` frontier nodes) and,
while the rows are written, one chunk of them (`CHUNK`).

How a hop stays the in-memory walk's: each chunk's edges are reduced to the first edge into each node (by
source key, then properties: `impact.first_edges`) and merged into the `reach` table keeping the least; a
node joins `node` once the whole hop is in, if no earlier hop reached it. Paths are built in SQL a distance
at a time (`chain`), as rows are read back in the answer's order from an index.
"""

from __future__ import annotations

import json
import sqlite3
import weakref
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from django.conf import settings
from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_read
from lineage_app.graph.impact import (
    TYPE_ORDER,
    field_seeds,
    first_edges,
    job_keys,
    path_edge,
    stale_edges_from,
)
from lineage_app.graph.model import KEY_SEPARATOR, Label, Moment, NodeRef, natural_key
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.traversal import (
    CHUNK,
    Edge,
    ElementIds,
    Walk,
    application_actions,
    double_hop_rows,
    element_ids,
    hop_rows,
    job_applications,
)

WALK_CHUNK = CHUNK  # nodes per statement of the walk (a hop, a page of nodes): what its answers in the heap grow with
KINDS = sorted(TYPE_ORDER, key=TYPE_ORDER.__getitem__)  # a node's `kind` is its label's place in the answer's order
JOB_KIND, FIELD_KIND = TYPE_ORDER[Label.JOB], TYPE_ORDER[Label.FIELD]  # the kinds statements here name
SEPARATOR = "\x1f"  # between the ids of a stored path (no node id holds it: it separates a key's parts)

SCHEMA = """
-- SQLite, not Cypher: the walk's tables (so `manage.py cypher_catalog` leaves them out)
CREATE TABLE node (
    n INTEGER PRIMARY KEY,
    kind INTEGER NOT NULL,
    key TEXT NOT NULL,
    nid TEXT NOT NULL,
    eid TEXT,
    step INTEGER,
    distance INTEGER NOT NULL,
    parent INTEGER,
    edge TEXT,
    via INTEGER,
    app_key TEXT,
    app_nid TEXT,
    moved INTEGER NOT NULL DEFAULT 0,
    UNIQUE (kind, key)
);
CREATE INDEX node_step ON node (step, kind, key);
CREATE INDEX node_order ON node (distance, kind, nid);
CREATE INDEX node_app ON node (app_key, distance, key) WHERE app_key IS NOT NULL;
CREATE TABLE reach (
    layer INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    key TEXT NOT NULL,
    eid TEXT,
    skind INTEGER NOT NULL,
    skey TEXT NOT NULL,
    rank TEXT NOT NULL,
    edge TEXT,
    PRIMARY KEY (layer, kind, key)
) WITHOUT ROWID;
CREATE TABLE chain (n INTEGER PRIMARY KEY, distance INTEGER NOT NULL, keep INTEGER NOT NULL, ids TEXT NOT NULL,
                    edges TEXT NOT NULL);
CREATE INDEX chain_distance ON chain (distance);
CREATE TABLE probe (kind INTEGER NOT NULL, key TEXT NOT NULL);
"""
TABLES = ("node", "reach", "chain", "probe")

# The first edge into each node of a hop's chunk, kept if it ranks before the one an earlier chunk found.
REACH_MERGE = """
INSERT INTO reach (layer, kind, key, eid, skind, skey, rank, edge) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (layer, kind, key) DO UPDATE SET eid = excluded.eid, skind = excluded.skind, skey = excluded.skey,
    rank = excluded.rank, edge = excluded.edge
WHERE (excluded.skey, excluded.rank) < (reach.skey, reach.rank)
"""
# A hop's layer, once all its chunks are in: the nodes no earlier hop reached, each with its parent.
REACH_APPLY = """
INSERT INTO node (kind, key, nid, eid, step, distance, parent, edge)
SELECT r.kind, r.key, nid(r.kind, r.key), r.eid, ?, ?, s.n, r.edge
FROM reach r JOIN node s ON s.kind = r.skind AND s.key = r.skey
WHERE r.layer = ? AND NOT EXISTS (SELECT 1 FROM node o WHERE o.kind = r.kind AND o.key = r.key)
ORDER BY r.kind, r.key
"""
FRONTIER_PAGE = """
SELECT key, eid FROM node WHERE step = ? AND kind = ? AND key > ? AND eid IS NOT NULL ORDER BY key LIMIT ?
"""
# Each application reached as itself, or as its nearest action (least distance, then key) when that is nearer.
ROLL_UP = """
INSERT INTO node (kind, key, nid, distance, parent, edge, via, moved)
SELECT a.kind, a.app_key, a.app_nid, a.distance, a.parent, a.edge, a.via, 1 FROM node a
WHERE a.app_key IS NOT NULL
  AND a.n = (SELECT b.n FROM node b WHERE b.app_key = a.app_key ORDER BY b.distance, b.key LIMIT 1)
ON CONFLICT (kind, key) DO UPDATE SET distance = excluded.distance, parent = excluded.parent, edge = excluded.edge,
    via = excluded.via, moved = 1
WHERE excluded.distance < node.distance
"""
# How a path names a node: rolled up, an action job by its application.
SHOWN = {False: "c.nid", True: "coalesce(c.app_nid, c.nid)"}
CHAINS_AT_START = "INSERT INTO chain SELECT c.n, 0, c.moved, {shown}, '' FROM node c WHERE c.distance = 0"
# A path is its parent's plus the node (and, for a field, the column edge it came by); a dataset or job found by
# a field has that field's path plus itself.
CHAINS_BY_PARENT = """
INSERT INTO chain SELECT c.n, c.distance, c.moved, p.ids || char(31) || {shown},
    CASE WHEN c.kind = {field} THEN (CASE WHEN p.edges = '' THEN c.edge ELSE p.edges || ',' || c.edge END)
    ELSE p.edges END
FROM node c JOIN chain p ON p.n = c.parent WHERE c.distance = ?
"""
CHAINS_BY_FIELD = """
INSERT INTO chain SELECT c.n, c.distance, c.moved, v.ids || char(31) || {shown}, v.edges
FROM node c JOIN chain v ON v.n = c.via WHERE c.distance = ? AND c.parent IS NULL
"""
# Only the last two distances' paths are kept, and those of applications moved nearer (their children are farther).
CHAINS_DROP = "DELETE FROM chain WHERE distance < ? AND keep = 0"
# Every node but a start has a parent or a field it was found by, one distance nearer or at its own: a node left
# without a path would be a row left out of the answer, so it is an error, not a gap.
PATHLESS_AT = "SELECT count(*) FROM node c WHERE c.distance = ? AND NOT EXISTS (SELECT 1 FROM chain h WHERE h.n = c.n)"
ASSETS_AT = """
SELECT c.kind, c.key, c.app_nid, h.ids, h.edges FROM node c JOIN chain h ON h.n = c.n
WHERE c.distance = ? {folded} ORDER BY c.kind, c.nid
"""


class Asset(NamedTuple):
    """One asset of the answer: how far, the node ids from a start, the column edges along them, and (at
    action level) its application job's id."""

    ref: NodeRef
    distance: int
    path: list[str]
    transformations: list[dict[str, Any]]
    application: str | None


def _close(db: sqlite3.Connection, reading: weakref.WeakSet[sqlite3.Cursor]) -> None:
    for cursor in list(reading):
        cursor.close()
    db.close()


def _nid(kind: int, key: str) -> str:
    return node_ref_id((KINDS[kind], key))


def _path_edge(edge: tuple[tuple[str, Any], ...]) -> str:
    """A column edge as a path shows it (`impact.path_edge`), as JSON."""
    return json.dumps(path_edge(edge), separators=(",", ":"), ensure_ascii=False)


class ImpactWalk:
    """The state of one export's walk, in its own SQLite database; `close` frees it (also at garbage collection)."""

    def __init__(self, *, starts: list[NodeRef], depth: int, moment: Moment, roll_up: bool) -> None:
        self.starts, self.depth, self.moment, self.roll_up = starts, depth, moment, roll_up
        self.rolled_up = False
        self.stale_left_out = 0
        self.steps = 0
        # One request uses it at a time, but a streamed response may be read on another thread than the view's.
        self.db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        # Cursors still reading (a walk or a response cut short): closed first, else the database would outlive
        # `close` (and keep its file) until they are collected, which a traceback holding them may put off.
        self._reading: weakref.WeakSet[sqlite3.Cursor] = weakref.WeakSet()
        self._finalizer = weakref.finalize(self, _close, self.db, self._reading)
        self.db.create_function("nid", 2, _nid, deterministic=True)
        for pragma in (
            f"cache_size = -{int(settings.IMPACT_WALK_CACHE_KB)}",
            "journal_mode = OFF",
            "synchronous = OFF",
        ):
            self.db.execute(f"PRAGMA {pragma}")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the database: its temporary file (unlinked when made) is gone with it."""
        self._finalizer()

    def _read(self, statement: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        """A cursor read a page at a time between other work, closed by `close` if still open."""
        cursor = self.db.execute(statement, params)
        self._reading.add(cursor)
        return cursor

    # ---- the walk ----

    def walk(self, tx: ManagedTransaction) -> None:
        """`impact.impact_traverse`'s walk, in one read transaction (run again from the start on a retry)."""
        for table in TABLES:
            self.db.execute(f"DELETE FROM {table}")  # table names from TABLES, never from input
        self.steps, self.rolled_up, self.stale_left_out = 0, False, 0
        found = element_ids(tx, self.starts)
        lineage = 0  # the dataset / job walk's starts, and the actions of each application job among them
        rows = [(ref, found.get(ref), lineage if ref[0] is not Label.FIELD else None) for ref in self.starts]
        for ref in [ref for ref in self.starts if ref[0] is Label.JOB]:
            actions = sorted(application_actions(tx, application=ref).items())
            rows.extend((action, i, lineage) for action, i in actions)
        self._put_starts(rows)
        self._walk_from(tx, lineage)
        datasets = [key for label, key in self.starts if label is Label.DATASET]
        seeds = [ref for ref in self.starts if ref[0] is Label.FIELD]
        seeds.extend(field_seeds(tx, datasets) if datasets else [])
        if seeds:
            self.steps += 1
            column = self.steps
            found = element_ids(tx, seeds)
            self._put_starts([(ref, found.get(ref), column) for ref in seeds])
            self._walk_from(tx, column)
        if any(ref[0] is Label.FIELD for ref in self.starts):
            self._owners_of_fields(tx)
        if not self.moment.stale:
            inner = self._read("SELECT eid FROM node WHERE eid IS NOT NULL AND distance < ?", (self.depth,))
            while page := inner.fetchmany(WALK_CHUNK):
                self.stale_left_out += stale_edges_from(tx, [i for (i,) in page], self.moment)
        self._find_applications(tx)
        if self.roll_up:
            self.db.execute(ROLL_UP)
            self.rolled_up = True

    def _put_starts(self, rows: Iterable[tuple[NodeRef, str | None, int | None]]) -> None:
        """Nodes at distance 0, each kept as first put, the frontier of walk `step` (None: of no walk yet)."""
        self.db.executemany(
            "INSERT INTO node (kind, key, nid, eid, step, distance) VALUES (?, ?, nid(?, ?), ?, ?, 0)"
            " ON CONFLICT (kind, key) DO UPDATE SET step = coalesce(node.step, excluded.step),"
            " eid = coalesce(node.eid, excluded.eid)",
            [(TYPE_ORDER[ref[0]], ref[1], TYPE_ORDER[ref[0]], ref[1], i, step) for ref, i, step in rows],
        )

    def _walk_from(self, tx: ManagedTransaction, step: int) -> None:
        """`traversal.graph_walk` downstream from the nodes of `step`, to `depth`: two hops per round trip
        while two are left and the frontier holds no field, as the in-memory walk goes."""
        distance = 0
        kinds = {kind for (kind,) in self.db.execute("SELECT DISTINCT kind FROM node WHERE step = ?", (step,))}
        while kinds and distance < self.depth:
            double = self.depth - distance >= 2 and FIELD_KIND not in kinds
            for kind in sorted(kinds):
                for ids in self._frontier(step, kind):
                    self._hop(tx, KINDS[kind], ids, double)
            middle, self.steps = self.steps + 1, self.steps + 2 if double else self.steps + 1
            added = self._apply(1, middle, distance + 1)
            if double:
                added = self._apply(2, self.steps, distance + 2) if added else 0
            self.db.execute("DELETE FROM reach")
            step, distance = self.steps, distance + (2 if double else 1)
            kinds = (
                {kind for (kind,) in self.db.execute("SELECT DISTINCT kind FROM node WHERE step = ?", (step,))}
                if added
                else set()
            )

    def _frontier(self, step: int, kind: int) -> Iterator[list[str]]:
        """The element ids of the `kind` nodes of `step`, `WALK_CHUNK` at a time in key order."""
        last = ""
        while page := self.db.execute(FRONTIER_PAGE, (step, kind, last, WALK_CHUNK)).fetchall():
            last = page[-1][0]
            yield [i for _, i in page]

    def _hop(self, tx: ManagedTransaction, label: Label, ids: list[str], double: bool) -> None:
        """One chunk of a hop (or of two): its first edge into each node, into `reach`."""
        moment = self.moment
        if not double:
            rows, found = hop_rows(tx, label=label, ids=ids, direction="downstream", moment=moment, times=False)
            self._merge(1, rows, found)
            return
        # Every edge beyond each middle node: those of nodes reached before are dropped here, in one look-up.
        first, beyond, found = double_hop_rows(
            tx, Walk(reached={}), label=label, ids=ids, direction="downstream", moment=moment, times=False
        )
        self._merge(1, first, found)
        if beyond:
            before = self._reached({via for via, _, _ in beyond})
            self._merge(2, [row for row in beyond if row[0] not in before], found)

    def _merge(self, layer: int, rows: list[Edge], found: ElementIds) -> None:
        firsts = first_edges(rows, {target: target for _, target, _ in rows})
        self.db.executemany(
            REACH_MERGE,
            [
                (
                    layer,
                    TYPE_ORDER[node[0]],
                    node[1],
                    found.get(node),
                    TYPE_ORDER[source[0]],
                    source[1],
                    str(edge),
                    _path_edge(edge) if node[0] is Label.FIELD else None,
                )
                for node, (source, _, edge) in firsts.items()
            ],
        )

    def _reached(self, refs: set[NodeRef]) -> set[NodeRef]:
        """Those of `refs` reached before: one join with the nodes, not a look-up each."""
        self.db.execute("DELETE FROM probe")
        self.db.executemany("INSERT INTO probe VALUES (?, ?)", [(TYPE_ORDER[label], key) for label, key in refs])
        joined = self.db.execute("SELECT p.kind, p.key FROM probe p JOIN node USING (kind, key)")
        return {(KINDS[kind], key) for kind, key in joined}

    def _apply(self, layer: int, step: int, distance: int) -> int:
        return self.db.execute(REACH_APPLY, (step, distance, layer)).rowcount

    def _owners_of_fields(self, tx: ManagedTransaction) -> None:
        """`impact._owners_of_fields`: the dataset holding each field reached and the job deriving it, at the
        field's distance, by the first field (nearest, then by id) that names them."""
        last: tuple[int, str] = (0, "")
        query = (
            "SELECT n, key, distance, edge, nid FROM node WHERE kind = ? AND distance > 0 AND (distance, nid) > (?, ?)"
            " ORDER BY distance, nid LIMIT ?"
        )
        while page := self.db.execute(query, (FIELD_KIND, *last, WALK_CHUNK)).fetchall():
            last = (page[-1][2], page[-1][4])
            holders, jobs = [], []
            for n, key, distance, edge, _ in page:
                namespace, dataset, _ = key.split(KEY_SEPARATOR)
                holders.append((natural_key(namespace, dataset), distance, n))
                job = json.loads(edge).get("job") if edge else None
                if job:
                    jobs.append((job, distance, n))
            keys = job_keys(tx, {job for job, _, _ in jobs})
            self._put_found_by_field(Label.DATASET, holders)
            self._put_found_by_field(Label.JOB, [(keys[job], d, n) for job, d, n in jobs if job in keys])

    def _put_found_by_field(self, label: Label, rows: list[tuple[str, int, int]]) -> None:
        kind = TYPE_ORDER[label]
        self.db.executemany(
            "INSERT OR IGNORE INTO node (kind, key, nid, distance, via) VALUES (?, ?, nid(?, ?), ?, ?)",
            [(kind, key, kind, key, distance, via) for key, distance, via in rows],
        )

    def _find_applications(self, tx: ManagedTransaction) -> None:
        """Each job reached that is an action of an application: that application (`app_key`, `app_nid`)."""
        last = ""
        query = "SELECT key, eid FROM node WHERE kind = ? AND key > ? ORDER BY key LIMIT ?"
        while page := self.db.execute(query, (JOB_KIND, last, WALK_CHUNK)).fetchall():
            last = page[-1][0]
            missing = [(Label.JOB, key) for key, i in page if i is None]  # found by a field's derivation
            found = element_ids(tx, missing) if missing else {}
            jobs = {(Label.JOB, key): i or found[(Label.JOB, key)] for key, i in page if i or (Label.JOB, key) in found}
            self.db.executemany(
                "UPDATE node SET app_key = ?, app_nid = ? WHERE kind = ? AND key = ?",
                [
                    (app[1], node_ref_id(app), JOB_KIND, ref[1])
                    for ref, (app, _) in job_applications(tx, jobs=jobs).items()
                ],
            )

    # ---- the answer ----

    def assets_nearest_first(self) -> Iterator[Asset]:
        """The reached nodes other than the starts and seeds (and, rolled up, action jobs), by distance, kind and
        id, each with its path; only two distances' paths are kept at a time."""
        shown = SHOWN[self.rolled_up]
        folded = "AND c.app_key IS NULL" if self.rolled_up else ""
        distances = [d for (d,) in self.db.execute("SELECT DISTINCT distance FROM node ORDER BY distance")]
        for distance in distances:
            if distance == 0:
                self.db.execute(CHAINS_AT_START.format(shown=shown))
                continue
            self.db.execute(CHAINS_BY_PARENT.format(shown=shown, field=FIELD_KIND), (distance,))
            self.db.execute(CHAINS_BY_FIELD.format(shown=shown), (distance,))
            self.db.execute(CHAINS_DROP, (distance - 1,))
            if pathless := self.db.execute(PATHLESS_AT, (distance,)).fetchone()[0]:
                raise RuntimeError(f"{pathless} nodes at distance {distance} have no path from a start")
            for kind, key, app, ids, edges in self._read(ASSETS_AT.format(folded=folded), (distance,)):
                yield Asset(
                    ref=(KINDS[kind], key),
                    distance=distance,
                    path=ids.split(SEPARATOR),
                    transformations=json.loads(f"[{edges}]") if edges else [],
                    application=None if self.rolled_up else app,
                )

    def actions(self, applications: list[str]) -> dict[str, list[str]]:
        """For each of the application jobs with keys `applications`, the ids of the action jobs reached (not as
        starts) that it stands for, sorted."""
        self.db.execute("DELETE FROM probe")
        self.db.executemany("INSERT INTO probe VALUES (?, ?)", [(JOB_KIND, key) for key in applications])
        found: dict[str, list[str]] = {}
        query = (
            "SELECT a.app_key, a.nid FROM probe p JOIN node a ON a.app_key = p.key WHERE a.distance > 0"
            " ORDER BY a.app_key, a.nid"
        )
        for app, action in self.db.execute(query):
            found.setdefault(app, []).append(action)
        return found

    def asset_count(self) -> int:
        folded = "AND app_key IS NULL" if self.rolled_up else ""
        return int(self.db.execute(f"SELECT count(*) FROM node WHERE distance > 0 {folded}").fetchone()[0])


def impact_walk(*, starts: list[NodeRef], depth: int, moment: Moment, roll_up: bool) -> ImpactWalk:
    """Everything downstream of `starts` within `depth` hops, as `impact.impact_traverse` finds it, held in SQLite.

    The caller closes it (`ImpactWalk.close`) once its rows are read; it is closed here if the walk fails."""
    walk = ImpactWalk(starts=starts, depth=depth, moment=moment, roll_up=roll_up)
    try:
        graph_read(walk.walk)
    except BaseException:
        walk.close()
        raise
    return walk
