"""An unusable connection string is refused at construction, by every backend, as InvalidArgumentError naming
the part at fault and never the password (no server is contacted)."""

from __future__ import annotations

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisSessionBackends

SECRET = "s3cret-pw"


@pytest.mark.parametrize("bundle", [MongoSessionBackends, AsyncMongoSessionBackends])
@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("http://db.internal:27017", "Invalid URI scheme"),
        (f"mongodb://app:{SECRET}@db.internal:27017:27018", "Reserved characters such as ':'"),
        (f"mongodb://app:{SECRET}@db.internal:port/", "Port contains non-digit characters"),
    ],
)
def test_mongodb(bundle: type, uri: str, reason: str) -> None:
    with pytest.raises(InvalidArgumentError, match=f"^invalid MongoDB URI: {reason}") as refused:
        bundle.from_uri(uri, node_id="node-a")
    assert SECRET not in str(refused.value)


@pytest.mark.parametrize("bundle", [RedisSessionBackends, AsyncRedisSessionBackends])
@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://cache.internal:6379/0", "Redis URL must specify one of the following schemes"),
        (f"redis://app:{SECRET}@cache.internal:abc/0", "Port could not be cast to integer value as 'abc'"),
    ],
)
def test_redis(bundle: type, url: str, reason: str) -> None:
    with pytest.raises(InvalidArgumentError, match=f"^invalid Redis URL: {reason}") as refused:
        bundle(url, "node-a")
    assert SECRET not in str(refused.value)


@pytest.mark.parametrize("bundle", [PostgresSessionBackends, AsyncPostgresSessionBackends])
def test_postgresql(bundle: type) -> None:
    refusal = r"^source is not a PostgreSQL connection string: .*missing \"=\""
    with pytest.raises(InvalidArgumentError, match=refusal) as refused:
        bundle(f"host=db.internal password={SECRET} sslmode", "node-a")
    assert SECRET not in str(refused.value)
    good = "postgresql://app@db.internal/sessions"
    with pytest.raises(InvalidArgumentError, match=r"^listen_dsn is not a PostgreSQL connection string: ") as refused:
        bundle(good, "node-a", pooled=True, listen_dsn=f"host=db.internal password={SECRET} port")
    assert SECRET not in str(refused.value)
