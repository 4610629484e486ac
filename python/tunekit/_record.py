"""Record: a report's JSON document with its fields as attributes."""


class Record:
    """A read-only view of a dict whose keys are attributes (nested dicts are
    Records, lists of dicts lists of Records); to_dict() gives the dict back.
    The C++ reports' field names are the keys, so `report.missing` reads as
    `report.missing` does in C++."""

    __slots__ = ("_fields",)

    def __init__(self, fields):
        object.__setattr__(self, "_fields", dict(fields))

    @staticmethod
    def _wrap(value):
        if isinstance(value, dict):
            return Record(value)
        if isinstance(value, list):
            return [Record._wrap(item) for item in value]
        return value

    def __getattr__(self, name):
        try:
            return Record._wrap(self._fields[name])
        except KeyError:
            raise AttributeError(f"{name!r}: not a field (the fields: {', '.join(sorted(self._fields))})") from None

    def __setattr__(self, name, value):
        raise AttributeError("a Record is read-only")

    def __getitem__(self, name):
        return Record._wrap(self._fields[name])

    def __contains__(self, name):
        return name in self._fields

    def __dir__(self):
        return sorted(self._fields)

    def __eq__(self, other):
        return isinstance(other, Record) and self._fields == other._fields

    def __repr__(self):
        shown = ", ".join(f"{key}={value!r}" for key, value in self._fields.items() if not isinstance(value, (dict, list)))
        return f"Record({shown})"

    def to_dict(self):
        """The fields as a plain dict (a copy)."""
        import copy

        return copy.deepcopy(self._fields)
