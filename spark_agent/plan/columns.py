"""Column lineage from an analyzed logical plan (parsed from its JSON)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from spark_agent.plan.model import DatasetId
from spark_agent.plan.tree import Attr, Node, as_attr, expr_id, parse

IDENTITY, TRANSFORMATION, AGGREGATION = 0, 1, 2
SUBTYPES = ("IDENTITY", "TRANSFORMATION", "AGGREGATION")

Source = tuple[str, str, str]  # (dataset namespace, dataset name, field)

# Nodes whose output is their (first) child's output, unchanged.
PASSTHROUGH = frozenset(
    {
        "SubqueryAlias", "View", "Distinct", "Deduplicate", "GlobalLimit", "LocalLimit",
        "Limit", "Offset", "Tail", "Repartition", "RepartitionByExpression",
        "RebalancePartitions", "Sample", "ResolvedHint", "Subquery", "CTERelationDef",
        "CollectMetrics", "EventTimeWatermark", "Filter", "Sort",
        "PipeOperator",  # Spark 4.0+: the marker SQL pipe syntax (`FROM t |> WHERE ...`) leaves
    }
)  # fmt: skip
# Functions whose result hides the original values.
MASKING = frozenset({"Sha1", "Sha2", "Md5", "Crc32", "Murmur3Hash", "XxHash64", "Mask"})
SUBQUERY_EXPRS = frozenset({"ScalarSubquery", "ListQuery", "Exists", "LateralSubquery"})


@dataclass
class Lineage:
    """Where one attribute's values come from."""

    direct: dict[Source, tuple[int, bool]] = field(default_factory=dict)
    indirect: dict[Source, set[str]] = field(default_factory=dict)
    unresolved: bool = False

    def add_direct(self, src: Source, rank: int, masking: bool) -> None:
        old_rank, old_mask = self.direct.get(src, (IDENTITY, False))
        self.direct[src] = (max(old_rank, rank), old_mask or masking)

    def add_indirect(self, src: Source, subtype: str) -> None:
        self.indirect.setdefault(src, set()).add(subtype)

    def merge(self, other: Lineage, rank: int = IDENTITY, masking: bool = False) -> None:
        """Fold `other` into this lineage, as seen through an operation of `rank`."""
        for src, (r, m) in other.direct.items():
            self.add_direct(src, max(r, rank), m or masking)
        for src, subtypes in other.indirect.items():
            for subtype in subtypes:
                self.add_indirect(src, subtype)
        self.unresolved = self.unresolved or other.unresolved


class ColumnLineageBuilder:
    """Walks a parsed analyzed plan bottom-up, tracking each expression id's lineage."""

    def __init__(self, leaf_datasets: dict[int, list[DatasetId]]) -> None:
        # first output exprId of a dataset-reading leaf -> the datasets it reads
        self._leaf_datasets = leaf_datasets
        self.lineage: dict[int, Lineage] = {}
        self.dataset_indirect: dict[Source, set[str]] = {}
        self.unknown_nodes: list[str] = []
        self.input_schemas: dict[DatasetId, list[Attr]] = {}
        self._cte_outputs: dict[int, list[Attr] | None] = {}
        self._loop_outputs: dict[int, list[Attr]] = {}

    # ----- plans -------------------------------------------------------------------------

    def visit(self, node: Node) -> list[Attr] | None:
        """Record lineage for everything `node` produces; return its output (None: unknown)."""
        if node.cls == "UnionLoop":  # its recursion reads the loop itself: not bottom-up
            return self._union_loop(node)
        outputs = [self.visit(child) for child in node.children]
        cls = node.cls
        first = outputs[0] if outputs else None
        if cls == "Project":
            return self._project(node.exprs("projectList"))
        if cls == "Aggregate":
            self._indirect(node.exprs("groupingExpressions"), "GROUP_BY")
            return self._project(node.exprs("aggregateExpressions"))
        if cls == "Window":
            return _concat(first, self._project(node.exprs("windowExpressions")))
        if cls == "Generate":
            return self._generate(node, first)
        if cls == "Join":
            return self._join(node, outputs)
        if cls == "Union":
            return self._union(outputs)
        if cls in ("Intersect", "Except"):
            self._positional_indirect(outputs[1] if len(outputs) > 1 else None, "FILTER")
            return first
        if cls == "Expand":
            return self._expand(node)
        if cls == "WithCTE":
            return outputs[-1] if outputs else None
        if cls == "CTERelationRef":
            return self._cte_ref(node)
        if cls == "UnionLoopRef":
            return self._loop_ref(node)
        if cls in PASSTHROUGH:
            if cls == "Filter":
                self._indirect([e for e in [node.expr("condition")] if e], "FILTER")
            elif cls == "Sort":
                self._indirect(node.exprs("order"), "SORT")
            elif cls == "CTERelationDef":
                self._cte_outputs[int(node.fields.get("id", -1))] = first
            return first
        if not node.children and "output" in node.fields:
            return self._leaf(node)
        if not node.children and cls == "OneRowRelation":
            return []
        return self._unknown(node)

    def _leaf(self, node: Node) -> list[Attr]:
        attrs = node.attrs("output")
        datasets = self._leaf_datasets.get(attrs[0].expr_id, []) if attrs else []
        for dataset in datasets:
            self.input_schemas.setdefault(dataset, attrs)
        for attr in attrs:
            lineage = Lineage()
            for dataset in datasets:
                lineage.add_direct((dataset.namespace, dataset.name, attr.name), IDENTITY, False)
            self.lineage[attr.expr_id] = lineage
        return attrs

    def _unknown(self, node: Node) -> list[Attr] | None:
        self.unknown_nodes.append(node.cls)
        attrs = node.attrs("output")
        for attr in attrs:
            self.lineage.setdefault(attr.expr_id, Lineage(unresolved=True))
        return attrs or None

    def _project(self, named: list[Node]) -> list[Attr]:
        out: list[Attr] = []
        for expr in named:
            attr = as_attr(expr)
            if attr is not None:
                out.append(attr)
                self.lineage.setdefault(attr.expr_id, Lineage(unresolved=True))
                continue
            ident = expr_id(expr)
            if ident is None:
                continue
            lineage = Lineage()
            body = expr.children[0] if expr.cls == "Alias" and expr.children else expr
            self._collect(body, lineage, IDENTITY, False)
            self.lineage[ident] = lineage
            out.append(Attr(ident, str(expr.fields.get("name", "")), None))
        return out

    def _generate(self, node: Node, child_out: list[Attr] | None) -> list[Attr] | None:
        generated = node.attrs("generatorOutput")
        generator = node.expr("generator")
        lineage = Lineage()
        if generator is not None:
            self._collect(generator, lineage, TRANSFORMATION, False)
        for attr in generated:
            copy = Lineage()
            copy.merge(lineage)
            self.lineage[attr.expr_id] = copy
        if child_out is None:
            return None
        dropped = {int(i) for i in node.fields.get("unrequiredChildIndex") or [] if isinstance(i, int)}
        kept = [a for i, a in enumerate(child_out) if i not in dropped]
        return kept + generated

    def _join(self, node: Node, outputs: list[list[Attr] | None]) -> list[Attr] | None:
        condition = node.expr("condition")
        if condition is not None:
            self._indirect([condition], "JOIN")
        join_type = node.fields.get("joinType") or {}
        kind = str(join_type.get("object") or join_type.get("product-class") or "")
        left = outputs[0] if outputs else None
        right = outputs[1] if len(outputs) > 1 else None
        if any(k in kind for k in ("LeftSemi", "LeftAnti", "ExistenceJoin")):
            return left
        return _concat(left, right)

    def _union(self, outputs: list[list[Attr] | None]) -> list[Attr] | None:
        if not outputs or any(o is None for o in outputs):
            return None
        first = outputs[0]
        assert first is not None
        for i, attr in enumerate(first):
            merged = Lineage()
            for out in outputs:
                if out is not None and i < len(out):
                    merged.merge(self._lineage_of(out[i].expr_id))
            self.lineage[attr.expr_id] = merged
        return first

    def _expand(self, node: Node) -> list[Attr]:
        attrs = node.attrs("output")
        rows = node.fields.get("projections") or []
        for i, attr in enumerate(attrs):
            lineage = Lineage()
            for row in rows:
                if isinstance(row, list) and i < len(row) and isinstance(row[i], list):
                    self._collect(parse(row[i]), lineage, IDENTITY, False)
            self.lineage[attr.expr_id] = lineage
        return attrs

    def _cte_ref(self, node: Node) -> list[Attr]:
        attrs = node.attrs("output")
        source = self._cte_outputs.get(int(node.fields.get("cteId", -1)))
        for i, attr in enumerate(attrs):
            if source is not None and i < len(source):
                if source[i].expr_id != attr.expr_id:
                    lineage = Lineage()
                    lineage.merge(self._lineage_of(source[i].expr_id))
                    self.lineage[attr.expr_id] = lineage
            else:
                self.lineage.setdefault(attr.expr_id, Lineage(unresolved=True))
        return attrs

    def _union_loop(self, node: Node) -> list[Attr] | None:
        """Spark 4.1+'s `WITH RECURSIVE`: `UnionLoop(anchor, recursion)`, whose recursion reads the
        rows produced so far through a `UnionLoopRef`. Each output column comes from its anchor
        column and its recursion column; the recursion is walked again until that stops growing
        (each pass carries lineage one step further through the loop)."""
        if len(node.children) != 2:
            return self._unknown(node)
        anchor = self.visit(node.children[0])
        ids = [i.get("id") for i in node.fields.get("outputAttrIds") or [] if isinstance(i, dict)]
        int_ids = [i for i in ids if isinstance(i, int)]
        if anchor is None or len(int_ids) != len(anchor) or len(ids) != len(int_ids):
            self.visit(node.children[1])
            return self._unknown(node)
        out = [Attr(i, a.name, a.data_type) for i, a in zip(int_ids, anchor, strict=True)]
        for attr, source in zip(out, anchor, strict=True):
            self.lineage[attr.expr_id] = _copy(self._lineage_of(source.expr_id))
        self._loop_outputs[int(node.fields.get("id", -1))] = out
        for _ in range(len(out) + 2):
            before = [self.lineage[a.expr_id] for a in out]
            recursion = self.visit(node.children[1])
            for i, attr in enumerate(out):
                merged = _copy(self._lineage_of(anchor[i].expr_id))
                if recursion is None or i >= len(recursion):
                    merged.unresolved = True
                else:
                    merged.merge(self._lineage_of(recursion[i].expr_id))
                self.lineage[attr.expr_id] = merged
            if [self.lineage[a.expr_id] for a in out] == before:
                break
        return out

    def _loop_ref(self, node: Node) -> list[Attr]:
        """The rows a recursive CTE produced so far: the lineage of its `UnionLoop`'s output."""
        attrs = node.attrs("output")
        source = self._loop_outputs.get(int(node.fields.get("loopId", -1)))
        for i, attr in enumerate(attrs):
            if source is not None and i < len(source):
                self.lineage[attr.expr_id] = _copy(self._lineage_of(source[i].expr_id))
            else:
                self.lineage.setdefault(attr.expr_id, Lineage(unresolved=True))
        return attrs

    # ----- expressions -------------------------------------------------------------------

    def _lineage_of(self, ident: int) -> Lineage:
        return self.lineage.get(ident) or Lineage(unresolved=True)

    def _collect(self, expr: Node, into: Lineage, rank: int, masking: bool) -> None:
        """Fold the lineage of every attribute `expr` reads into `into`."""
        attr = as_attr(expr)
        if attr is not None:
            into.merge(self._lineage_of(attr.expr_id), rank, masking)
            return
        cls = expr.cls
        if cls in SUBQUERY_EXPRS:
            sub = expr.child_field("plan")
            out = self.visit(sub) if sub is not None else None
            if out is None:
                into.unresolved = True
            for sub_attr in (out or [])[: 1 if cls == "ScalarSubquery" else None]:
                into.merge(self._lineage_of(sub_attr.expr_id), rank, masking)
            for child in expr.children:  # outer references of a correlated subquery
                self._collect(child, into, max(rank, TRANSFORMATION), masking)
            return
        if cls == "WindowSpecDefinition":
            spec = Lineage()
            for child in expr.children:
                self._collect(child, spec, IDENTITY, False)
            for src in spec.direct:
                into.add_indirect(src, "WINDOW")
            into.unresolved = into.unresolved or spec.unresolved
            return
        if cls in ("OuterReference", "Alias") or _no_op_cast(expr):
            next_rank = rank
        elif ".aggregate." in expr.qualified or cls == "WindowExpression":
            next_rank = AGGREGATION
        else:
            next_rank = max(rank, TRANSFORMATION)
        next_mask = masking or cls in MASKING
        for child in expr.children:
            self._collect(child, into, next_rank, next_mask)

    def _indirect(self, exprs: Iterable[Node], subtype: str) -> None:
        lineage = Lineage()
        for expr in exprs:
            self._collect(expr, lineage, IDENTITY, False)
        for src in lineage.direct:
            self.dataset_indirect.setdefault(src, set()).add(subtype)

    def _positional_indirect(self, attrs: list[Attr] | None, subtype: str) -> None:
        for attr in attrs or []:
            for src in self._lineage_of(attr.expr_id).direct:
                self.dataset_indirect.setdefault(src, set()).add(subtype)

    # ----- result ------------------------------------------------------------------------

    def facet_body(self, columns: list[tuple[str, int | None]]) -> tuple[dict[str, object], int]:
        """The `columnLineage` facet body for output `columns` (name, exprId) and the
        number of columns whose lineage could not be resolved."""
        fields: dict[str, object] = {}
        unresolved = 0
        for name, ident in columns:
            lineage = self._lineage_of(ident) if ident is not None else Lineage(unresolved=True)
            entry: dict[str, object] = {"inputFields": _input_fields(lineage)}
            if lineage.unresolved:
                unresolved += 1
                entry["unresolved"] = True
            fields[name] = entry
        dataset = [
            _input_field(src, [_indirect(s) for s in sorted(subtypes)])
            for src, subtypes in sorted(self.dataset_indirect.items())
        ]
        body: dict[str, object] = {"fields": fields}
        if dataset:
            body["dataset"] = dataset
        return body, unresolved


def _no_op_cast(expr: Node) -> bool:
    """A cast to the type its input already has (the analyzer adds these on inserts)."""
    if expr.cls != "Cast" or len(expr.children) != 1:
        return False
    inner = as_attr(expr.children[0])
    return inner is not None and inner.data_type == expr.fields.get("dataType")


def _copy(lineage: Lineage) -> Lineage:
    copy = Lineage()
    copy.merge(lineage)
    return copy


def _concat(a: list[Attr] | None, b: list[Attr] | None) -> list[Attr] | None:
    return None if a is None or b is None else a + b


def _indirect(subtype: str) -> dict[str, object]:
    return {"type": "INDIRECT", "subtype": subtype}


def _input_field(src: Source, transformations: list[dict[str, object]]) -> dict[str, object]:
    return {
        "namespace": src[0],
        "name": src[1],
        "field": src[2],
        "transformations": transformations,
    }


def _input_fields(lineage: Lineage) -> list[dict[str, object]]:
    sources = sorted(set(lineage.direct) | set(lineage.indirect))
    out = []
    for src in sources:
        transformations: list[dict[str, object]] = []
        if src in lineage.direct:
            rank, masking = lineage.direct[src]
            transformations.append({"type": "DIRECT", "subtype": SUBTYPES[rank], "masking": masking})
        transformations.extend(_indirect(s) for s in sorted(lineage.indirect.get(src, ())))
        out.append(_input_field(src, transformations))
    return out
