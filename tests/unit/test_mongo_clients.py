"""The one MongoDB client factory and the one way a connection string is shown (no server needed)."""

from __future__ import annotations

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.clients import (
    DEFAULT_SERVER_SELECTION_TIMEOUT_MS,
    async_mongo_client,
    display_uri,
    mongo_client,
    uri_hosts,
    uri_secrets,
)


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        (
            "mongodb://alice:s3cret@db1:27017,db2:27018/app?replicaSet=rs0",
            "mongodb://***@db1:27017,db2:27018/app?replicaSet=rs0",
        ),
        (
            "mongodb+srv://alice:s3cret@cluster0.example.net/?retryWrites=true",
            "mongodb+srv://***@cluster0.example.net/?retryWrites=true",
        ),
        ("mongodb://alice@h/", "mongodb://***@h/"),
        ("mongodb://a%40b:p%40ss@h", "mongodb://***@h"),
        (
            "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:tok3n",
            "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=%2A%2A%2A",
        ),
        (
            "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=k3y",
            "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=%2A%2A%2A",
        ),
        ("mongodb://h:27017/db", "mongodb://h:27017/db"),
        ("db1:27017,db2", "db1:27017,db2"),
        ("rediss://default:s3cret@cache:6380/0", "rediss://***@cache:6380/0"),
        (
            "postgresql://app:s3cret@pg/aimon?password=s3cret&sslmode=require",
            "postgresql://***@pg/aimon?password=%2A%2A%2A&sslmode=require",
        ),
        (
            "postgresql://app@db/app?sslpassword=s3cret&sslmode=verify-full",
            "postgresql://***@db/app?sslpassword=%2A%2A%2A&sslmode=verify-full",
        ),
        ("redis://:s3cret@cache:6380/2", "redis://***@cache:6380/2"),
        (
            "mongodb://h/?x_secret=s3cret&api_token=tok3n#frag",
            "mongodb://h/?x_secret=%2A%2A%2A&api_token=%2A%2A%2A#frag",
        ),
        ("host=db user=app password=s3cret dbname=app", "host=db user=app password=*** dbname=app"),
        ("host=db password='a b s3cret' dbname=app", "host=db password=*** dbname=app"),
        ("postgresql://postgres@127.0.0.1:5432/postgres", "postgresql://***@127.0.0.1:5432/postgres"),
    ],
)
def test_display_uri_hides_credentials(uri: str, shown: str) -> None:
    assert display_uri(uri) == shown
    for secret in ("s3cret", "tok3n", "k3y", "p%40ss", "alice"):
        assert secret not in display_uri(uri)


@pytest.mark.parametrize(
    ("uri", "secrets"),
    [
        ("mongodb://alice:p%40ss@h/?authMechanismProperties=AWS_SESSION_TOKEN:tok3n",
         ["AWS_SESSION_TOKEN:tok3n", "p%40ss", "p@ss"]),
        ("postgresql://app@db/app?password=s3cret&sslpassword=k3y&sslmode=require", ["k3y", "s3cret"]),
        ("host=db password='a b s3cret' dbname=app", ["a b s3cret"]),
        ("mongodb://alice@h/?replicaSet=rs0", []),
        ("db1:27017,db2", []),
    ],
)  # fmt: skip
def test_uri_secrets_are_what_display_uri_masks(uri: str, secrets: list[str]) -> None:
    assert uri_secrets(uri) == secrets
    for secret in secrets:
        assert secret not in display_uri(uri)


def test_uri_hosts_lists_hosts_never_credentials() -> None:
    assert uri_hosts("mongodb://alice:s3cret@db1,db2:27018/app") == "db1:27017, db2:27018"
    assert uri_hosts("mongodb+srv://alice:s3cret@cluster0.example.net/") == "cluster0.example.net"
    assert uri_hosts("db1:27017,db2") == "db1:27017, db2:27017"
    assert uri_hosts("mongodb://h:notaport/") == "<invalid URI>"
    assert uri_hosts("http://h/") == "<invalid URI>"


def test_clients_share_timeout_and_tz_awareness() -> None:
    for factory in (mongo_client, async_mongo_client):
        client = factory("mongodb://h", connect=False)
        assert client.codec_options.tz_aware
        assert client.options.server_selection_timeout == DEFAULT_SERVER_SELECTION_TIMEOUT_MS / 1000
        assert (
            factory("mongodb://h/?serverSelectionTimeoutMS=1234", connect=False).options.server_selection_timeout
            == 1.234
        )
        assert (
            factory(
                "mongodb://h/?serverSelectionTimeoutMS=1234", timeout_ms=500, connect=False
            ).options.server_selection_timeout
            == 0.5
        )


def test_unusable_connection_strings_are_invalid_arguments_without_the_password() -> None:
    with pytest.raises(InvalidArgumentError, match="invalid MongoDB URI") as caught:
        mongo_client("mongodb://alice:s3cret@h:notaport/", connect=False)
    assert "s3cret" not in str(caught.value)
    with pytest.raises(InvalidArgumentError, match="invalid MongoDB URI"):
        async_mongo_client("mongodb://h/?tls=maybe", strict_options=True, connect=False)
    with pytest.raises(InvalidArgumentError, match="non-empty string, got ''"):
        mongo_client("")
