"""resource_tracker 0.5.0's ``resource_tracker.tiny_bars``: the small
Handlebars-like template language its report is written in, for templates
of one's own (our report is the library's, docs/report.md; 0.5.0's
template is not shipped).

    {{ expr }}            the value, HTML-escaped ({{{ expr }}}: as it is)
    {{#if expr}} .. {{#else}} .. {{/if}}
    {{#each expr as name}} .. {{/each}}

``expr`` is a dotted name (dictionary keys, object attributes, a
TinyDataFrame's columns) followed by filters, ``| name`` or ``| name:arg``:
pretty_number[:digits], divide:divisor, round[:digits], round_memory,
index:i and unix_timestamp_to_local_tz_string. An ``if`` whose name cannot
be resolved is false. Where 0.5.0 writes "[Error: ...]" into the page for a
value that cannot be had, this raises ValueError (or KeyError) naming it."""
from __future__ import annotations

import html
import re
import time
from typing import Any, Callable, Dict, List, Optional, Union

from .tiny_data_frame import TinyDataFrame

__all__ = ['render_template']

_TAG = re.compile(r'\{\{\{(.*?)\}\}\}|\{\{(.*?)\}\}', re.S)
_EACH = re.compile(r'^\s*(.+?)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)\s*$', re.S)
_FILTER = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*(.*?))?\s*$', re.S)


def _resolve_var(name: str, ctx: Dict[str, Any]) -> Any:
    """The value of ``name`` (a dotted path, then ``| filter[:arg]``s) in
    ctx. KeyError when a part of the path is missing (or None); ValueError
    for a filter that is not one or cannot apply."""
    path, *filters = name.split('|')
    path = path.strip()
    value: Any = ctx
    for part in path.split('.'):
        if isinstance(value, TinyDataFrame):
            value = value[part] if part in value.columns else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            value = getattr(value, part, None)
        if value is None:
            raise KeyError(f'{part} not found in {path}')
    for text in filters:
        match = _FILTER.match(text)
        if not match:
            raise ValueError(f'Invalid filter expression: {text.strip()!r}')
        function = _FILTERS.get(match.group(1))
        if function is None:
            raise ValueError(f'Unknown filter: {match.group(1)} (valid: {", ".join(sorted(_FILTERS))})')
        if match.group(2):
            value = function(value, _argument(match.group(2)))
        else:
            value = function(value)
    return value


def _argument(text: str) -> Union[int, float, str]:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _filter_index(value: Any, index: int = 0) -> Any:
    """value[index]; ValueError when it has none."""
    try:
        return value[index]
    except Exception:  # noqa: BLE001
        raise ValueError(f'Invalid index: {index} for {value}') from None


def _filter_pretty_number(value: Union[int, float], digits: int = 0) -> str:
    """A number with thousands separators and at most digits decimals
    (trailing zeros dropped); anything else as str()."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number != number or number in (float('inf'), float('-inf')):
        return str(value)
    if number.is_integer():
        return f'{int(number):,}'
    text = f'{number:,.{int(digits)}f}'
    if '.' in text:
        text = text.rstrip('0').rstrip('.')
    return text


def _filter_divide(value: Union[int, float], divisor: Union[int, float] = 1) -> float:
    if not isinstance(value, (int, float)):
        raise ValueError(f'Invalid value: {value} should be a number')
    if not isinstance(divisor, (int, float)):
        raise ValueError(f'Invalid divisor: {divisor} should be a number')
    if divisor == 0:
        raise ValueError(f'Division by zero: {value} / {divisor}')
    return value / divisor


def _filter_round(value: Union[int, float], digits: int = 0) -> Union[int, float]:
    """round(value, digits) as a float; a value that is no number as it is."""
    try:
        return round(float(value), int(digits))
    except (TypeError, ValueError):
        return value


def _filter_round_memory(mib: Union[int, float]) -> int:
    """The memory to ask for: MiB rounded up to 128, 256, 512, 1024, 2048,
    then whole GiB (the recommendation's rule)."""
    from .report import round_memory
    return round_memory(mib)


def _filter_unix_timestamp_to_local_tz_string(value: Union[int, float]) -> str:
    return time.strftime('%Y-%m-%d %H:%M:%S %Z', time.localtime(value))


_FILTERS: Dict[str, Callable] = {
    'index': _filter_index, 'pretty_number': _filter_pretty_number, 'divide': _filter_divide,
    'round': _filter_round, 'round_memory': _filter_round_memory,
    'unix_timestamp_to_local_tz_string': _filter_unix_timestamp_to_local_tz_string,
}


def _get_filter(name: str) -> Optional[Callable]:
    return _FILTERS.get(name)


# ---- parsing: a template is a list of nodes --------------------------------
# ('text', str) | ('value', expr, escaped) | ('if', expr, then, else) |
# ('each', expr, name, body)

def _parse(template: str) -> List[tuple]:
    nodes, stack = [], []  # stack: (kind, expr, name, nodes before, then-part or None)
    position = 0
    for match in _TAG.finditer(template):
        if match.start() > position:
            nodes.append(('text', template[position:match.start()]))
        position = match.end()
        if match.group(1) is not None:
            nodes.append(('value', match.group(1), False))
            continue
        tag = match.group(2).strip()
        if tag.startswith('#if'):
            stack.append(['if', tag[3:].strip(), None, nodes, None])
            nodes = []
        elif tag == '#else':
            if not stack or stack[-1][0] != 'if' or stack[-1][4] is not None:
                raise ValueError('{{#else}} outside an {{#if}}')
            stack[-1][4], nodes = nodes, []
        elif tag == '/if':
            if not stack or stack[-1][0] != 'if':
                raise ValueError('{{/if}} without its {{#if}}')
            _, expr, _, outer, then = stack.pop()
            node = ('if', expr, then if then is not None else nodes, nodes if then is not None else [])
            nodes = outer + [node]
        elif tag.startswith('#each'):
            each = _EACH.match(tag[5:])
            if not each:
                raise ValueError(f'Invalid each expression: {tag!r} (it is {{{{#each LIST as NAME}}}})')
            stack.append(['each', each.group(1), each.group(2), nodes, None])
            nodes = []
        elif tag == '/each':
            if not stack or stack[-1][0] != 'each':
                raise ValueError('{{/each}} without its {{#each}}')
            _, expr, name, outer, _ = stack.pop()
            nodes = outer + [('each', expr, name, nodes)]
        else:
            nodes.append(('value', tag, True))
    if stack:
        raise ValueError(f'Unclosed tag: {{{{#{stack[-1][0]} {stack[-1][1]}}}}}')
    if position < len(template):
        nodes.append(('text', template[position:]))
    return nodes


def _render(nodes: List[tuple], ctx: Dict[str, Any], out: List[str]) -> None:
    for node in nodes:
        kind = node[0]
        if kind == 'text':
            out.append(node[1])
        elif kind == 'value':
            value = _resolve_var(node[1], ctx)
            text = '' if value is None else str(value)
            out.append(html.escape(text, quote=True) if node[2] else text)
        elif kind == 'if':
            try:
                met = bool(_resolve_var(node[1], ctx))
            except (KeyError, ValueError):
                met = False
            _render(node[2] if met else node[3], ctx, out)
        else:
            items = _resolve_var(node[1], ctx)
            for item in items:
                _render(node[3], {**ctx, node[2]: item}, out)


def render_template(template: str, context: Dict[str, Any]) -> str:
    """template rendered with context (see the module's documentation).
    ValueError for a template that does not parse (an unclosed block, an
    each that is not ``LIST as NAME``) or a filter that cannot apply,
    KeyError for a value that is not in context."""
    out: List[str] = []
    _render(_parse(template), context, out)
    return ''.join(out)

