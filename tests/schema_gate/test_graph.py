"""The canonical schema graph: unions flattened and sorted, equal subgraphs merged, recursion, JSON form."""

from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest
from pydantic import BaseModel, Field

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.build import build_graph
from aimon_mongo.schema_gate.declare import Int64, JsonText, body
from aimon_mongo.schema_gate.graph import digest, graph_from_json, graph_to_json


class A(TypedDict):
    type: Literal["a"]
    x: str


class B(TypedDict):
    type: Literal["b"]
    y: int


class C(TypedDict):
    type: Literal["c"]


class SameAsA(TypedDict):
    x: str
    type: Literal["a"]


class Twice(TypedDict):
    first: A
    second: SameAsA


class Tree(TypedDict):
    label: str
    children: list["Tree"]


class OtherTree(TypedDict):
    children: list["OtherTree"]
    label: str


class Pair(TypedDict):
    left: Tree
    right: OtherTree


def _digest(shape: object) -> str:
    return digest(build_graph(shape, "t"))


def test_unions_are_flattened_deduplicated_and_order_free() -> None:
    assert _digest(A | (B | C)) == _digest(C | B | A) == _digest(A | B | C | A)
    assert _digest(str | (int | None)) == _digest(None | int | str)
    assert _digest(Literal["x", "y"] | Literal["y", "z"]) == _digest(Literal["z", "x", "y"])


def test_literals_subsumed_by_their_primitive_and_booleans_fold() -> None:
    assert _digest(str | Literal["x"]) == _digest(str)
    assert _digest(Literal[True, False]) == _digest(bool)
    assert _digest(Literal[True]) != _digest(bool)
    assert _digest(Literal[1]) != _digest(Literal[True])  # JSON true is not 1
    assert _digest(int | None) != _digest(int)


def test_single_member_unions_are_the_member() -> None:
    assert _digest(A | A) == _digest(A)


def test_equal_subgraphs_are_merged() -> None:
    graph = build_graph(Twice, "t")
    objects = [n for n in graph if n.kind == "object"]
    assert len(objects) == 2  # Twice, and one node for A / SameAsA
    assert graph[0].children[0] == graph[0].children[1]


def test_recursive_shapes_are_finite_and_merge_by_structure() -> None:
    graph = build_graph(Pair, "t")
    assert graph[0].children[0] == graph[0].children[1]  # Tree and OtherTree are the same shape
    assert len(graph) == 4  # Pair, Tree, array of Tree, string
    assert _digest(Tree) == _digest(OtherTree)


def test_json_form_round_trips_and_is_validated() -> None:
    graph = build_graph(Pair, "t")
    assert graph_from_json(graph_to_json(graph), "t") == graph
    broken = graph_to_json(graph)
    broken["nodes"][0]["properties"][0]["type"] = 99
    with pytest.raises(SchemaGateError, match="out of range"):
        graph_from_json(broken, "t")
    broken = graph_to_json(graph)
    broken["nodes"][0]["properties"].reverse()
    with pytest.raises(SchemaGateError, match="sorted"):
        graph_from_json(broken, "t")


@body
class Stored(BaseModel):
    conversation_id: str = Field(alias="conversationId")
    token: Int64
    note: str | None = None


class StoredDict(TypedDict):
    conversationId: str
    token: Int64
    note: NotRequired[str | None]


@body
class StoredDictBody(StoredDict):
    pass


def test_pydantic_models_declare_by_alias_like_typeddicts() -> None:
    assert _digest(Stored) == _digest(StoredDictBody)
    assert _digest(Stored) != _digest(StoredDict)  # the body flag is part of the shape


class Encoded(TypedDict):
    payload: Annotated[str, JsonText(A)]


def test_encoded_content_is_part_of_the_shape() -> None:
    assert _digest(Encoded) != _digest(dict[str, Any])
    graph = build_graph(Encoded, "t")
    assert graph[graph[0].children[0]].kind == "encoded"


class Bad(TypedDict, total=False):
    x: str


class Fixed(TypedDict):
    pair: tuple[int, int]


def test_undeclarable_shapes_are_refused_with_the_path() -> None:
    with pytest.raises(SchemaGateError, match="NotRequired"):
        build_graph(Bad, "t")
    with pytest.raises(SchemaGateError, match=r"t \$\.pair: fixed-length tuples"):
        build_graph(Fixed, "t")
    with pytest.raises(SchemaGateError, match="not a declarable"):
        build_graph(complex, "t")
