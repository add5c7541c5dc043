"""What a reference's path reaches in a JSON schema: whether ``${steps.s1.data.*.id}`` can
exist in what step s1's tool declares it returns (``check_path``), and the schema of what it
yields (``schema_at_path``). ``$ref``, ``anyOf`` and ``oneOf`` are followed; an untyped branch
could hold anything, so it never rules a path out.
"""

from __future__ import annotations

from ._references import MAP, Segment

__all__ = ["check_path", "schema_at_path"]


def _schema_options(schema: dict, defs: dict) -> list[dict]:
    """Flatten ``$ref``, ``anyOf`` and ``oneOf`` into the concrete schemas a value may have."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _schema_options(defs.get(name, {}), defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [o for sub in schema[key] for o in _schema_options(sub, defs)]
    return [schema]


def check_path(schema: dict | None, path: tuple[Segment, ...]) -> str | None:
    """Say why ``path`` cannot exist in a value of JSON ``schema``; ``None`` when it can.

    An empty or unknown schema (``{}``) accepts any path: only a schema that rules the path
    out is reported.
    """
    if not schema:
        return None
    defs = schema.get("$defs", {})
    current = [schema]
    walked = ""
    for seg in path:
        nxt: list[dict] = []
        options = [o for s in current for o in _schema_options(s, defs)]
        if any(not o or o.get("type") is None and "properties" not in o and "items" not in o
               for o in options):
            return None  # an untyped branch could hold anything
        if seg is MAP or isinstance(seg, int):
            nxt = [o.get("items", {}) for o in options if o.get("type") == "array"]
            shown = "*" if seg is MAP else f"[{seg}]"
            if not nxt:
                return f"{walked or 'the result'} is not a list, so {shown} cannot apply"
            walked += ".*" if seg is MAP else f"[{seg}]"
        else:
            for o in options:
                props = o.get("properties")
                if props is not None and seg in props:
                    nxt.append(props[seg])
                elif o.get("type") == "object" and props is None:
                    nxt.append({})
                elif props is not None and o.get("additionalProperties"):
                    extra = o["additionalProperties"]
                    nxt.append(extra if isinstance(extra, dict) else {})
            if not nxt:
                fields = sorted({k for o in options for k in (o.get("properties") or {})})
                where = walked or "the result"
                have = f" (it has: {', '.join(fields)})" if fields else ""
                return f"{where} has no field {seg!r}{have}"
            walked += f".{seg}"
        if any(not n for n in nxt):
            return None
        current = nxt
    return None


def _untyped(option: dict) -> bool:
    return not option or (option.get("type") is None and "properties" not in option
                          and "items" not in option)


def schema_at_path(schema: dict | None, path: tuple[Segment, ...]) -> dict:
    """The JSON schema of what ``path`` yields from a value of ``schema``; ``{}`` (any
    value) where that is not known: no schema, an untyped branch, or a path that
    ``check_path`` rules out. A ``*`` yields a list: the rest of the path, per item, is
    its item schema. ``$ref``s are kept and ``$defs`` carried along at the top."""
    if not schema:
        return {}
    defs = schema.get("$defs", {})
    found = _schema_at(schema, path, defs)
    return {**found, "$defs": defs} if found and defs else found


def _schema_at(schema: dict, path: tuple[Segment, ...], defs: dict) -> dict:
    if not path:
        return {k: v for k, v in schema.items() if k != "$defs"}
    options = _schema_options(schema, defs)
    if any(_untyped(o) for o in options):
        return {}
    seg, rest = path[0], path[1:]
    found: list[dict] = []
    for option in options:
        if seg is MAP or isinstance(seg, int):
            if option.get("type") != "array":
                continue
            sub = _schema_at(option.get("items") or {}, rest, defs)
            if seg is MAP:
                sub = {"type": "array", "items": sub} if sub else {"type": "array"}
        else:
            props = option.get("properties")
            if props is not None and seg in props:
                sub = _schema_at(props[seg], rest, defs)
            elif option.get("type") == "object" and (props is None or option.get("additionalProperties")):
                extra = option.get("additionalProperties")
                sub = _schema_at(extra, rest, defs) if isinstance(extra, dict) and extra else {}
            else:
                continue
        if not sub:
            return {}  # one branch could hold anything, so the whole could
        if sub not in found:
            found.append(sub)
    if not found:
        return {}
    return found[0] if len(found) == 1 else {"anyOf": found}
