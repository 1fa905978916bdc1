"""YAML that may be hostile, read with bounds: no aliases, unique keys, bounded nesting.

One loader for every YAML file a user hands the workbook: scenarios (``decide/yamlsafe.py``, two
levels of nesting) and model configuration files (``model/config_files.py``: Megatron-LM / NeMo
YAML, a few levels). A YAML alias is refused because a "billion laughs" file of 422 bytes expands
to gigabytes; a duplicate key because the last would silently win; deep nesting because the
files read never need it. The caller bounds the size of the text before.
"""

from __future__ import annotations

import yaml

from ..text import shown


class YamlError(ValueError):
    """A YAML text or file that cannot be read safely (one line, what is wrong and where)."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases, with unique keys and nesting of at most
    ``max_nesting`` collections (set by :func:`bounded_yaml` on a subclass)."""

    max_nesting = 2
    what = "a scenario"
    nesting_hint = "field: value, or field: [a, b]"

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise YamlError(
                f"line {mark.line + 1}: aliases (*name) are not allowed in {self.what}; "
                "write the value out"
            )
        collection = self.check_event(yaml.MappingStartEvent, yaml.SequenceStartEvent)
        self._depth += collection
        if self._depth > self.max_nesting:
            mark = self.peek_event().start_mark
            raise YamlError(
                f"line {mark.line + 1}: nested deeper than {self.what} ({self.max_nesting} "
                f"levels: {self.nesting_hint})"
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= collection

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise YamlError(f"line {key_node.start_mark.line + 1}: a key must be a name")
            if key in seen:
                raise YamlError(
                    f"line {key_node.start_mark.line + 1}: {shown(key)} appears twice (first on "
                    f"line {seen[key]}); allowed: each field once"
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def bounded_yaml(text: str, *, max_nesting: int, what: str, nesting_hint: str):
    """The YAML value of ``text`` (one document) read by the bounded loader: at most
    ``max_nesting`` nested collections; ``what`` ("a scenario") and ``nesting_hint`` word the
    errors. Raises :class:`YamlError` in one line."""
    loader = type(
        "_Loader",
        (_BoundedLoader,),
        {"max_nesting": max_nesting, "what": what, "nesting_hint": nesting_hint},
    )
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as e:
        where = f"line {e.problem_mark.line + 1}: " if e.problem_mark else ""
        raise YamlError(f"is not valid YAML: {where}{e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise YamlError(f"is not valid YAML: {shown(str(e))}") from None
    except RecursionError:
        raise YamlError(f"is nested too deeply to be {what}") from None
