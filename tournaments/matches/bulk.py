"""Many rows of one table inserted at once: one template's values, a few columns that vary per row.

Django's ``bulk_create`` prepares every field of every object in Python: for
the 59,700 rows of a 200-bot round robin that was most of 30 seconds.  Here
the values every row shares are prepared once, from a template object, and
on PostgreSQL the varying columns travel as one array each: one
``INSERT ... SELECT ... FROM unnest(...)`` per batch expands them in the
server.  The ids are drawn from the table's sequence first, so they are known
without trusting the order of ``RETURNING``.  Other databases (the embedded
SQLite) get the same rows through ``bulk_create``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model

#: Rows per statement: a few arrays of this many plain values each.
BATCH = 10_000


def rows_insert(*, template: Model, varying: Mapping[str, Sequence[Any]]) -> list[int]:
    """Insert one row per position of ``varying``'s lists; returns the new rows' ids, in that order.

    Each row holds ``template``'s values (its defaults included, prepared as
    a ``save`` would) with the columns named in ``varying`` (attribute names:
    ``match_id``, not ``match``) set to that row's values, which must be plain
    database values (integers, booleans, strings or None).
    """
    lengths = {len(values) for values in varying.values()}
    if len(lengths) != 1:
        raise ValueError("every varying column needs one value per row")
    (count,) = lengths
    if count == 0:
        return []
    if connection.vendor != "postgresql":
        return _rows_bulk_create(template=template, varying=varying, count=count)
    model = type(template)
    meta = model._meta
    quote = connection.ops.quote_name
    pk = meta.pk
    assert pk is not None
    fields = [f for f in meta.concrete_fields if f is not pk]
    shared = [f for f in fields if f.attname not in varying]
    moving = [_field(model, name) for name in varying]
    shared_values = [f.get_db_prep_save(f.pre_save(template, True), connection) for f in shared]
    columns = ", ".join(quote(f.column or f.attname) for f in [pk, *shared, *moving])
    # Every value typed: an untyped parameter would be text, and text is not assigned to an integer.
    selected = ", ".join(
        ["u.c0", *(f"%s::{f.db_type(connection)}" for f in shared), *(f"u.c{n + 1}" for n in range(len(moving)))]
    )
    arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in [pk, *moving])
    names = ", ".join(f"c{n}" for n in range(len(moving) + 1))
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) SELECT {selected} FROM unnest({arrays}) AS u({names})"
    ids: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, count, BATCH):
            size = min(BATCH, count - start)
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [meta.db_table, pk.column, size],
            )
            batch = [row[0] for row in cursor.fetchall()]
            cursor.execute(
                sql, [*shared_values, batch, *(list(varying[f.attname][start : start + size]) for f in moving)]
            )
            ids.extend(batch)
    return ids


def _field(model: type[Model], attname: str) -> Field[Any, Any]:
    for f in model._meta.concrete_fields:
        if f.attname == attname:
            return f
    raise ValueError(f"{model.__name__} has no column {attname!r}")


def _rows_bulk_create(*, template: Model, varying: Mapping[str, Sequence[Any]], count: int) -> list[int]:
    objects = []
    for n in range(count):
        obj = copy.copy(template)
        obj._state = copy.copy(template._state)
        for name, values in varying.items():
            setattr(obj, name, values[n])
        objects.append(obj)
    type(template).objects.bulk_create(objects, batch_size=1000)  # type: ignore[attr-defined]
    return [obj.pk for obj in objects]
