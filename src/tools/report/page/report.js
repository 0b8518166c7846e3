/* report.js - the report's one script (inlined into the page at build
 * time, so that the page opens offline as one file).
 *
 * Hover: the value of every line at the column under the pointer, in the
 * line below the chart, with a dashed cursor. Each chart's <svg> carries its
 * data in data- attributes (report_chart.c writes them): x (seconds since
 * the start), l<i> and v<i> (line i's label and values), unit, the plot's
 * box (pl, pw, pt, ph) and span; b and k<i> (the code blocks a column is
 * in, as a bit mask, and their names); t and tk<i> (the largest task of a
 * column).
 *
 * Opened with #hover-test, the page moves a pointer over the middle of
 * each chart itself and lists what the charts said in <pre id="hover-test">
 * (the Chromium test reads it). */
(function () {
    function clock(s) {
        s = Math.round(s);
        var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
        return (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (x < 10 ? '0' : '') + x;
    }

    function setup(svg) {
        var xs = svg.dataset.x.split(',').map(Number), lines = [];
        for (var i = 0; svg.dataset['v' + i] !== undefined; i++)
            lines.push({label: svg.dataset['l' + i], v: svg.dataset['v' + i].split(',')});
        var pl = +svg.dataset.pl, pw = +svg.dataset.pw, pt = +svg.dataset.pt, ph = +svg.dataset.ph,
            span = +svg.dataset.span || 1;
        var cur = document.createElementNS(svg.namespaceURI, 'line');
        cur.setAttribute('class', 'cursor');
        cur.setAttribute('y1', pt);
        cur.setAttribute('y2', pt + ph);
        cur.style.display = 'none';
        svg.appendChild(cur);
        var tip = svg.parentNode.querySelector('.tip'), hint = tip.textContent;

        svg.addEventListener('mousemove', function (e) {
            var r = svg.getBoundingClientRect();
            var px = (e.clientX - r.left) / r.width * svg.viewBox.baseVal.width;
            var t = (px - pl) / pw * span, best = 0;
            for (var i = 1; i < xs.length; i++)
                if (Math.abs(xs[i] - t) < Math.abs(xs[best] - t))
                    best = i;
            var cx = pl + xs[best] / span * pw;
            cur.setAttribute('x1', cx);
            cur.setAttribute('x2', cx);
            cur.style.display = '';
            var parts = [clock(xs[best])];
            lines.forEach(function (l) {
                parts.push(l.label + ': ' + l.v[best] + ' ' + svg.dataset.unit);
            });
            if (svg.dataset.b) {
                var m = +svg.dataset.b.split(',')[best], k = [];
                for (var j = 0; svg.dataset['k' + j] !== undefined; j++)
                    if (m >> j & 1)
                        k.push(svg.dataset['k' + j]);
                if (k.length)
                    parts.push('in ' + k.join(', '));
            }
            if (svg.dataset.t) {
                var ti = +svg.dataset.t.split(',')[best];
                if (ti >= 0)
                    parts.push('largest: ' + svg.dataset['tk' + ti]);
            }
            tip.textContent = parts.join('  \u00b7  ');
        });
        svg.addEventListener('mouseleave', function () {
            cur.style.display = 'none';
            tip.textContent = hint;
        });
    }

    var svgs = document.querySelectorAll('svg[data-x]');
    [].forEach.call(svgs, setup);
    if (location.hash === '#hover-test') {
        var out = document.createElement('pre');
        out.id = 'hover-test';
        [].forEach.call(svgs, function (svg) {
            var r = svg.getBoundingClientRect();
            svg.dispatchEvent(new MouseEvent('mousemove',
                {clientX: r.left + r.width * 0.55, clientY: r.top + r.height / 2}));
            out.textContent += svg.getAttribute('aria-label') + ' @ ' +
                svg.parentNode.querySelector('.tip').textContent + '\n';
        });
        document.body.appendChild(out);
    }
})();
