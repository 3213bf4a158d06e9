"""Every change kind of the classifier, with its review flag, on small declarations."""

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from aimon_mongo.schema_gate.build import build_graph
from aimon_mongo.schema_gate.classify import REVIEW, classify
from aimon_mongo.schema_gate.declare import Instant, Int64, JsonText, body
from aimon_mongo.schema_gate.inventory import RootSchema


def _root(shape: object, family: str = "f", version: int = 1) -> RootSchema:
    return RootSchema("r", family, version, build_graph(shape, "r"))


def _kinds(before: object, after: object, **kw: Any) -> set[tuple[str, str, bool]]:
    return {(c.kind, c.path, c.review) for c in classify("r", _root(before), _root(after, **kw))}


class V1(TypedDict):
    id: str
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]


@body
class V1Body(TypedDict):
    id: str
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]


class AddOptional(V1):
    extra: NotRequired[str]


@body
class AddOptionalBody(V1Body):
    extra: NotRequired[str]


class AddRequired(V1):
    extra: str


class Removed(TypedDict):
    id: str
    kind: Literal["A", "B"]
    note: NotRequired[str]


class MadeOptional(TypedDict):
    id: str
    n: NotRequired[int]
    kind: Literal["A", "B"]
    note: NotRequired[str]


class MadeRequired(TypedDict):
    id: str
    n: int
    kind: Literal["A", "B"]
    note: str


class TypeChanged(TypedDict):
    id: str
    n: Int64
    kind: Literal["A", "B"]
    note: NotRequired[str]


class FormatChanged(TypedDict):
    id: Instant
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]


class LiteralsChanged(TypedDict):
    id: str
    n: int
    kind: Literal["A", "C"]
    note: NotRequired[str]


class Nullable(TypedDict):
    id: str | None
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]


class Mapped(TypedDict):
    id: str
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]
    tags: dict[str, str]


class MappedInt(TypedDict):
    id: str
    n: int
    kind: Literal["A", "B"]
    note: NotRequired[str]
    tags: dict[str, int]


def test_property_changes() -> None:
    assert _kinds(V1, AddOptional) == {("optional-property-added", "$.extra", True)}
    assert _kinds(V1Body, AddOptionalBody) == {("optional-property-added", "$.extra", False)}
    assert _kinds(V1, AddRequired) == {("required-property-added", "$.extra", True)}
    assert _kinds(V1, Removed) == {("property-removed", "$.n", True)}
    assert _kinds(V1, MadeOptional) == {("property-made-optional", "$.n", True)}
    assert _kinds(V1, MadeRequired) == {("property-made-required", "$.note", True)}
    assert _kinds(V1, V1Body) == {("body-flag-changed", "$", True)}


def test_type_literal_and_union_changes() -> None:
    assert _kinds(V1, TypeChanged) == {("type-changed", "$.n", True)}
    assert _kinds(V1, FormatChanged) == {("type-changed", "$.id", True)}
    assert _kinds(V1, LiteralsChanged) == {
        ("literal-values-added", "$.kind", True),
        ("literal-values-removed", "$.kind", True),
    }
    assert _kinds(V1, Nullable) == {("union-variants-changed", "$.id", True)}
    assert _kinds(Mapped, MappedInt) == {("type-changed", "$.tags{*}", True)}
    assert _kinds(dict[str, str], V1) == {
        ("additional-properties-changed", "$", True),
        ("required-property-added", "$.id", True),
        ("required-property-added", "$.n", True),
        ("required-property-added", "$.kind", True),
        ("optional-property-added", "$.note", True),
    }
    assert _kinds(list[str], dict[str, str]) == {("type-changed", "$", True)}


class Text(TypedDict):
    type: Literal["text"]
    text: str


class Image(TypedDict):
    type: Literal["image"]
    data: str


class ImageWithCaption(TypedDict):
    type: Literal["image"]
    data: str
    caption: NotRequired[str]


class Audio(TypedDict):
    type: Literal["audio"]
    data: str


class Holder(TypedDict):
    encoded: Annotated[str, JsonText(Text | Image)]


class HolderWithCaption(TypedDict):
    encoded: Annotated[str, JsonText(Text | ImageWithCaption)]


def test_union_variants_pair_by_discriminator() -> None:
    assert _kinds(Text | Image, Text | ImageWithCaption) == {
        ("optional-property-added", '$(type="image").caption', True)
    }
    assert _kinds(Text | Image, Text | Image | Audio) == {("union-variants-changed", "$", True)}
    assert _kinds(Holder, HolderWithCaption) == {
        ("optional-property-added", '$.encoded<json-text>(type="image").caption', True)
    }


def test_root_level_changes() -> None:
    assert [(c.kind, c.review) for c in classify("r", None, _root(V1))] == [("root-added", False)]
    assert [(c.kind, c.review) for c in classify("r", _root(V1), None)] == [("root-removed", True)]
    assert [(c.kind, c.review) for c in classify("r", _root(V1), _root(V1, version=2))] == [
        ("format-version-changed", True)
    ]
    assert [(c.kind, c.review) for c in classify("r", _root(V1), _root(V1, family="g"))] == [("family-changed", True)]
    assert classify("r", _root(V1), _root(V1)) == []


def test_every_kind_has_a_policy() -> None:
    assert all(isinstance(flag, bool) for flag in REVIEW.values())
    assert [k for k, flag in REVIEW.items() if not flag] == ["root-added"]  # plus optional-in-body, per change
