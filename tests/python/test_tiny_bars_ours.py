"""gputracker.resource_tracker.tiny_bars: resource_tracker 0.5.0's template
language (values, if/else, each, filters), and its errors, each one line
naming what is wrong."""
import pytest

from gputracker.resource_tracker.tiny_bars import render_template


def test_renders():
    template = ('{{#each runs as run}}<b>{{ run.name }}</b> {{ run.mib | round_memory }} MiB '
                '{{ run.cores | pretty_number:1 }}{{#if run.gpu}} GPU{{#else}} CPU{{/if}};{{/each}}'
                '{{{ raw }}}')
    out = render_template(template, {'runs': [{'name': 'a<b', 'mib': 300, 'cores': 12345.67, 'gpu': True},
                                              {'name': 'c', 'mib': 100, 'cores': 2, 'gpu': 0}],
                                     'raw': '<i>x</i>'})
    assert out == '<b>a&lt;b</b> 512 MiB 12,345.7 GPU;<b>c</b> 128 MiB 2 CPU;<i>x</i>'
    assert render_template('{{ n | divide:4 | round:1 }}', {'n': 10}) == '2.5'
    assert render_template('{{ xs | index:1 }}', {'xs': [1, 2]}) == '2'
    assert render_template('{{#if missing.deep}}yes{{#else}}no{{/if}}', {}) == 'no'


@pytest.mark.parametrize('template, error, words', [
    ('{{#if a}}x', ValueError, 'Unclosed tag: {{#if a}}'),
    ('{{/each}}', ValueError, '{{/each}} without its {{#each}}'),
    ('{{#else}}', ValueError, '{{#else}} outside an {{#if}}'),
    ('{{#each xs}}{{/each}}', ValueError, 'it is {{#each LIST as NAME}}'),
    ('{{ a | shout }}', ValueError, 'Unknown filter: shout (valid: divide, index, pretty_number, round, '
                                    'round_memory, unix_timestamp_to_local_tz_string)'),
    ('{{ a | divide:0 }}', ValueError, 'Division by zero: 1 / 0'),
    ('{{ b.c }}', KeyError, 'b not found in b.c'),
])
def test_errors(template, error, words):
    with pytest.raises(error) as raised:
        render_template(template, {'a': 1})
    assert words in str(raised.value)
