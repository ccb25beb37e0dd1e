"""GET /api/tournaments/?errored=true lists only tournaments with errored matches, each item counts them, and a
value other than true or false is a 400 that names the parameter; the schema documents both."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import assert_error, client_for
from tests.errored import started_tournament


def test_the_list_filters_and_counts_errored_matches(user: Any, make_bot: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(3)]  # 2 games a pairing: 6 matches each
    clean = started_tournament(owner=user, bots=bots, name="clean")
    two = started_tournament(owner=user, bots=bots, name="two", errored=2)
    one = started_tournament(owner=user, bots=bots, name="one", errored=1)
    client = client_for(user)

    listed = client.get("/api/tournaments/").json()["results"]
    assert {t["id"]: t["errored_matches"] for t in listed} == {clean.id: 0, two.id: 2, one.id: 1}
    with_errors = client.get("/api/tournaments/?errored=true").json()
    assert [t["id"] for t in with_errors["results"]] == [one.id, two.id] and with_errors["count"] == 2
    assert [t["id"] for t in client.get("/api/tournaments/?errored=false").json()["results"]] == [clean.id]
    # The filter joins the others.
    assert client.get("/api/tournaments/?errored=true&status=draft").json()["results"] == []
    assert client.get("/api/tournaments/?errored=&status=running").json()["count"] == 3

    error = assert_error(client.get("/api/tournaments/?errored=maybe"), 400, "invalid")
    assert list(error["fields"]) == ["errored"] and "true or false" in error["fields"]["errored"][0]


def test_the_schema_documents_the_parameter_and_the_count(user: Any) -> None:
    schema = client_for(user).get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        return components[node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else node

    listing = schema["paths"]["/api/tournaments/"]["get"]
    (errored,) = [p for p in listing["parameters"] if p["name"] == "errored"]
    assert errored["in"] == "query" and errored["schema"] == {"type": "boolean"}
    assert "errored match" in errored["description"]
    assert "errored" in listing["responses"]["400"]["description"]
    page = resolve(listing["responses"]["200"]["content"]["application/json"]["schema"])
    item = resolve(page["properties"]["results"]["items"])
    assert item["properties"]["errored_matches"]["type"] == "integer"
