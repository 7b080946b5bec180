/* SPDX-License-Identifier: MIT */
/*
 * The dps compare HTML report: two timelines one above the other (original, simulated), the
 * per-thread table and the memory curves, drawn from the JSON in #dps-data. Embedded into the
 * report at build time; no network, no external assets.
 *
 * Big runs: segments are culled to what the view shows and merged per pixel column, so a row
 * never draws more rectangles than the panel is wide; hover details are looked up in the
 * full data by binary search, so nothing is lost to the merging.
 */
(function () {
	'use strict';
	var D = JSON.parse(document.getElementById('dps-data').textContent);
	var SIDES = ['orig', 'sim'];
	var SIDE_TITLE = ['Original', 'Simulated'];
	var KIND = ['running', 'preempted (runnable, not running)', 'blocked: sleep',
		'blocked: wait for a wake', 'blocked: join'];
	var MARK = ['create', 'join', 'wake', 'exit'];
	var rows = D.rows;
	var NR = rows.length;
	var RH = NR <= 150 ? 18 : (NR <= 1000 ? 12 : 5);
	var LW = 240;
	var selectedRow = -1;

	function esc(s) {
		return String(s).replace(/[&<>"']/g, function (c) {
			return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
		});
	}

	function fmtNs(ns, sign) {
		var a = Math.abs(ns), s = ns < 0 ? '-' : (sign && ns > 0 ? '+' : '');
		if (a < 1e3) return s + a.toFixed(0) + ' ns';
		if (a < 1e6) return s + (a / 1e3).toFixed(2) + ' us';
		if (a < 1e9) return s + (a / 1e6).toFixed(2) + ' ms';
		return s + (a / 1e9).toFixed(3) + ' s';
	}

	function fmtBytes(b) {
		var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], a = Math.abs(b), i = 0;
		while (a >= 1024 && i < u.length - 1) { a /= 1024; i++; }
		return (b < 0 ? '-' : '') + (i ? a.toFixed(1) : a.toFixed(0)) + ' ' + u[i];
	}

	/* Decodes a thread's delta-coded segments into typed arrays once. */
	function decode(t) {
		var g = t.g || [], n = g.length / 4, prev = 0, i;
		t.s = t.start;
		t.e_ = t.end;
		t.b = new Float64Array(n); t.e = new Float64Array(n);
		t.k = new Uint8Array(n); t.o = new Int32Array(n);
		for (i = 0; i < n; i++) {
			t.b[i] = prev + g[4 * i];
			t.e[i] = t.b[i] + g[4 * i + 1];
			t.k[i] = g[4 * i + 2];
			t.o[i] = g[4 * i + 3];
			prev = t.e[i];
		}
		t.nseg = n;
		var m = t.m || [];
		t.mt = []; t.mk = []; t.mo = [];
		for (i = 0; i + 2 < m.length; i += 3) {
			t.mt.push(m[i]); t.mk.push(m[i + 1]); t.mo.push(m[i + 2]);
		}
	}

	var full0 = 0, full1 = 1;
	D.sides.forEach(function (side) {
		side.threads.forEach(function (t) {
			decode(t);
			if (t.r < 0) return; /* left out of the comparison */
			full0 = Math.min(full0, t.s);
			full1 = Math.max(full1, t.e_);
		});
	});
	var view = { t0: full0, t1: full1 };

	function threadOf(s, r) {
		var i = rows[r].i[s];
		return i < 0 ? null : D.sides[s].threads[i];
	}

	function rowName(r) {
		var t = threadOf(0, r) || threadOf(1, r);
		return rows[r].p + ' ' + (t ? t.c : '');
	}

	/* First index whose end is after t (segments are time-ordered, disjoint). */
	function firstAfter(arr, n, t) {
		var lo = 0, hi = n;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (arr[mid] <= t) lo = mid + 1; else hi = mid;
		}
		return lo;
	}

	var panels = SIDES.map(function (name, s) {
		var root = document.getElementById('panel-' + name);
		return {
			s: s, root: root,
			axis: root.querySelector('.axis svg'),
			scroll: root.querySelector('.rows'),
			svg: root.querySelector('.rows svg'),
			g: root.querySelector('.rows svg g.body'),
			W: 800, scale: 1
		};
	});

	function niceStep(span, n) {
		var raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw)));
		var f = raw / p;
		return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
	}

	function X(p, t) { return LW + (t - view.t0) * p.scale; }

	function renderAxis(p) {
		var W = p.W, span = view.t1 - view.t0, step = niceStep(span, (W - LW) / 110);
		var out = [], t = Math.ceil(view.t0 / step) * step;
		for (; t <= view.t1; t += step) {
			var x = X(p, t).toFixed(1);
			out.push('<g class="tick"><line x1="' + x + '" x2="' + x + '" y1="14" y2="24"/>' +
				'<text x="' + x + '" y="11" text-anchor="middle">' + esc(fmtNs(t)) + '</text></g>');
		}
		out.push('<text x="6" y="16">time from the root thread\'s start</text>');
		if (p.brush) {
			out.push('<rect class="brush" x="' + Math.min(p.brush.a, p.brush.b) + '" y="0" width="' +
				Math.abs(p.brush.b - p.brush.a) + '" height="24"/>');
		}
		p.axis.setAttribute('width', W);
		p.axis.setAttribute('height', 24);
		p.axis.innerHTML = out.join('');
	}

	/* Rectangles of one thread in view, merged per pixel column. */
	function segRects(p, t, y, h, out) {
		var n = t.nseg, i = firstAfter(t.e, n, view.t0), drawn = 0;
		var cx0 = -1, cx1 = -1, ck = -1, right = p.W;
		function flush() {
			if (ck >= 0) {
				out.push('<rect class="k' + ck + '" x="' + cx0 + '" y="' + y + '" width="' +
					(cx1 - cx0) + '" height="' + h + '"/>');
				drawn++;
			}
		}
		for (; i < n && t.b[i] < view.t1; i++) {
			var x0 = Math.max(LW, X(p, t.b[i])), x1 = Math.min(right, X(p, t.e[i]));
			var q0 = Math.floor(x0), q1 = Math.max(q0 + 1, Math.round(x1)), k = t.k[i];
			if (ck === k && q0 <= cx1) {
				if (q1 > cx1) cx1 = q1;
				continue;
			}
			if (q1 <= cx1) continue; /* pixel already painted */
			flush();
			cx0 = Math.max(q0, cx1 < 0 ? q0 : cx1); cx1 = q1; ck = k;
		}
		flush();
		return drawn;
	}

	function markShapes(p, t, y, out) {
		var lastX = -10, lastK = -1, drawn = 0;
		var i = firstAfter(t.mt, t.mt.length, view.t0 - 1);
		for (; i < t.mt.length && t.mt[i] <= view.t1; i++) {
			var x = Math.round(X(p, t.mt[i])), k = t.mk[i];
			if (x === lastX && k === lastK) continue;
			lastX = x; lastK = k;
			if (RH < 10) {
				out.push('<rect class="m' + k + '" x="' + (x - 0.5) + '" y="' + y + '" width="1.5" height="' +
					RH + '"/>');
			} else if (k === 0) {
				out.push('<path class="m0" d="M' + (x - 4) + ' ' + y + 'h8l-4 6z"/>');
			} else if (k === 1) {
				out.push('<path class="m1" d="M' + x + ' ' + (y + RH / 2 - 5) + 'l4 5-4 5-4-5z"/>');
			} else if (k === 2) {
				out.push('<path class="m2" d="M' + (x - 4) + ' ' + (y + RH - 1) + 'h8l-4-6z"/>');
			} else {
				out.push('<rect class="m3" x="' + (x - 1) + '" y="' + (y + 1) + '" width="2" height="' +
					(RH - 2) + '"/>');
			}
			drawn++;
		}
		return drawn;
	}

	/* One row's content; returns the number of shapes drawn (lifeline, bars, marks). */
	function rowContent(p, r, body) {
		var y = r * RH, t = threadOf(p.s, r), barH = Math.max(2, RH - 6), off = (RH - barH) / 2;
		if (r === selectedRow) body.push('<rect class="sel" x="0" y="' + y + '" width="' + p.W +
			'" height="' + RH + '"/>');
		else if (r % 2) body.push('<rect class="stripe" x="0" y="' + y + '" width="' + p.W +
			'" height="' + RH + '"/>');
		if (RH >= 10) {
			var name = rowName(r), ind = 4 + Math.min(rows[r].d, 12) * 8;
			if (name.length > 30) name = name.slice(0, 29) + '\u2026';
			body.push('<text x="' + ind + '" y="' + (y + RH - 4) + '">' + esc(name) + '</text>');
			/* in the simulated panel, the CPU error next to the name: where to look first */
			var e = p.s === 1 && rows[r].m === 'matched' ? pctNum(rows[r].v[0]) : 0;
			if (e !== 0 && Math.abs(e) < 1e29 && Math.abs(e) >= 0.05) {
				body.push('<text class="badge ' + (e > 0 ? 'pos' : 'neg') + '" x="' + (LW - 4) + '" y="' +
					(y + RH - 4) + '" text-anchor="end">' + (e > 0 ? '+' : '') + e.toFixed(1) + '%</text>');
			}
		}
		if (!t) {
			body.push('<rect class="absent" x="' + LW + '" y="' + (y + off) + '" width="' + (p.W - LW) +
				'" height="' + barH + '"/>');
			return 0;
		}
		var drawn = 0, ls = Math.max(LW, X(p, t.s)), le = Math.min(p.W, X(p, t.e_));
		if (le >= ls && t.e_ >= view.t0 && t.s <= view.t1) {
			body.push('<line class="life" x1="' + ls.toFixed(1) + '" x2="' + Math.max(le, ls + 1).toFixed(1) +
				'" y1="' + (y + RH / 2) + '" y2="' + (y + RH / 2) + '"/>');
			drawn++;
		}
		drawn += segRects(p, t, y + off, barH, body);
		drawn += markShapes(p, t, y, body);
		return drawn;
	}

	/*
	 * Reads the panel's geometry. Done for all panels before any drawing: reading it after a
	 * DOM change forces a layout of every row, which costs seconds with thousands of rows.
	 */
	function measure(p) {
		p.cw = p.scroll.clientWidth;
		p.st = p.scroll.scrollTop;
		p.ch = p.scroll.clientHeight;
	}

	function layout(p) {
		p.W = Math.max(LW + 100, p.cw);
		p.scale = (p.W - LW - 40) / Math.max(1, view.t1 - view.t0);
	}

	/*
	 * Draws every row of a panel (at load and when the width changes). Later view changes
	 * redraw only the rows in sight (renderVisible), the others when they scroll in, so a
	 * zoom costs the same with 10 threads or 10,000.
	 */
	function renderPanel(p) {
		layout(p);
		var out = [], present = 0, side = SIDES[p.s];
		for (var r = 0; r < NR; r++) {
			var body = [], drawn = rowContent(p, r, body);
			if (!threadOf(p.s, r)) {
				out.push('<g class="row" data-side="' + side + '" data-row="' + r +
					'" data-present="0">' + body.join('') + '</g>');
				continue;
			}
			present++;
			out.push('<g class="row" data-side="' + side + '" data-row="' + r + '" data-thread="' +
				esc(rows[r].p) + '" data-present="1" data-drawn="' + drawn + '">' + body.join('') + '</g>');
		}
		p.svg.setAttribute('width', p.W);
		p.svg.setAttribute('height', Math.max(1, NR * RH));
		p.g.innerHTML = out.join('');
		p.rowEls = p.g.children;
		p.rowVer = new Int32Array(NR).fill(viewVersion);
		p.drawnW = p.W;
		document.body.setAttribute('data-rows-' + side, present);
		renderAxis(p);
	}

	function renderVisible(p) {
		layout(p);
		if (p.W !== p.drawnW || !p.rowEls) { renderPanel(p); return; }
		var r0 = Math.max(0, Math.floor(p.st / RH) - 30);
		var r1 = Math.min(NR, Math.ceil((p.st + p.ch) / RH) + 30);
		for (var r = r0; r < r1; r++) {
			if (p.rowVer[r] === viewVersion) continue;
			var body = [], drawn = rowContent(p, r, body), el = p.rowEls[r];
			el.innerHTML = body.join('');
			if (threadOf(p.s, r)) el.setAttribute('data-drawn', drawn);
			p.rowVer[r] = viewVersion;
		}
		renderAxis(p);
	}

	var pending = false, viewVersion = 0;
	function render() {
		if (pending) return;
		pending = true;
		requestAnimationFrame(function () {
			pending = false;
			panels.forEach(measure);
			panels.forEach(renderVisible);
		});
	}

	function setView(t0, t1) {
		var minSpan = 100, span = full1 - full0;
		if (t1 - t0 < minSpan) { var c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; }
		if (t1 - t0 > span) { t0 = full0; t1 = full1; }
		if (t0 < full0) { t1 += full0 - t0; t0 = full0; }
		if (t1 > full1) { t0 -= t1 - full1; t1 = full1; }
		view.t0 = t0; view.t1 = t1;
		viewVersion++;
		render();
	}

	function zoomAt(t, factor) {
		setView(t - (t - view.t0) * factor, t + (view.t1 - t) * factor);
	}

	/* Tooltip */
	var tip = document.getElementById('tip');
	function showTip(ev, lines) {
		tip.textContent = lines.join('\n');
		tip.style.display = 'block';
		var x = ev.clientX + 14, y = ev.clientY + 14;
		if (x + tip.offsetWidth > window.innerWidth) x = ev.clientX - tip.offsetWidth - 10;
		if (y + tip.offsetHeight > window.innerHeight) y = ev.clientY - tip.offsetHeight - 10;
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}
	function hideTip() { tip.style.display = 'none'; }

	function otherName(s, row) {
		return row >= 0 && row < NR ? rowName(row) : '(untraced)';
	}

	function hover(p, ev) {
		var box = p.svg.getBoundingClientRect(), x = ev.clientX - box.left, y = ev.clientY - box.top;
		var r = Math.floor(y / RH), t = r >= 0 && r < NR ? threadOf(p.s, r) : null;
		if (r < 0 || r >= NR) { hideTip(); return; }
		var head = SIDE_TITLE[p.s] + ' | thread ' + rowName(r);
		if (!t) { showTip(ev, [head, 'not in this run (' + rows[r].m.replace('_', ' ') + ')']); return; }
		head += t.tid >= 0 ? ' (tid ' + t.tid + ')' : '';
		if (x < LW) {
			var v = rows[r].v;
			showTip(ev, [head, 'start ' + fmtNs(t.s) + ', end ' + fmtNs(t.e_),
				'CPU ' + fmtNs(v[0][p.s] || 0) + ', blocked ' + fmtNs(v[1][p.s] || 0) +
				', preempted ' + fmtNs(v[2][p.s] || 0),
				'runs ' + v[5][p.s] + ', sleeps ' + v[6][p.s]]);
			return;
		}
		var tm = view.t0 + (x - LW) / p.scale, slack = 4 / p.scale;
		var mi = firstAfter(t.mt, t.mt.length, tm - slack - 1), best = -1;
		for (; mi < t.mt.length && t.mt[mi] <= tm + slack; mi++) {
			if (best < 0 || Math.abs(t.mt[mi] - tm) < Math.abs(t.mt[best] - tm)) best = mi;
		}
		if (best >= 0) {
			var mk = t.mk[best];
			showTip(ev, [head, MARK[mk] + (mk < 3 ? ' ' + otherName(p.s, t.mo[best]) : '') + ' at ' +
				fmtNs(t.mt[best])]);
			return;
		}
		var i = firstAfter(t.e, t.nseg, tm);
		if (i < t.nseg && t.b[i] <= tm) {
			var lines = [head, 'state: ' + KIND[t.k[i]], 'begin ' + fmtNs(t.b[i]) + ', duration ' +
				fmtNs(t.e[i] - t.b[i])];
			if (t.k[i] === 3) lines.push('woken by ' + otherName(p.s, t.o[i]));
			if (t.k[i] === 4) lines.push('joining ' + otherName(p.s, t.o[i]));
			showTip(ev, lines);
			return;
		}
		showTip(ev, [head, tm < t.s ? 'not started yet' : tm > t.e_ ? 'ended' : 'no event here',
			'at ' + fmtNs(tm)]);
	}

	var drag = null, syncing = false;
	panels.forEach(function (p) {
		p.svg.addEventListener('mousemove', function (ev) { if (!drag) hover(p, ev); });
		p.svg.addEventListener('mouseleave', hideTip);
		p.svg.addEventListener('mousedown', function (ev) {
			if (ev.button !== 0) return;
			drag = { p: p, x: ev.clientX, t0: view.t0, t1: view.t1, pan: true };
			p.svg.classList.add('dragging');
			hideTip();
			ev.preventDefault();
		});
		p.svg.addEventListener('dblclick', function () { setView(full0, full1); });
		p.svg.addEventListener('wheel', function (ev) {
			if (!ev.ctrlKey) return;
			ev.preventDefault();
			var box = p.svg.getBoundingClientRect();
			zoomAt(view.t0 + Math.max(0, ev.clientX - box.left - LW) / p.scale, Math.exp(ev.deltaY * 0.002));
		}, { passive: false });
		p.axis.addEventListener('wheel', function (ev) {
			ev.preventDefault();
			var box = p.axis.getBoundingClientRect();
			zoomAt(view.t0 + Math.max(0, ev.clientX - box.left - LW) / p.scale, Math.exp(ev.deltaY * 0.002));
		}, { passive: false });
		p.axis.addEventListener('mousedown', function (ev) {
			var box = p.axis.getBoundingClientRect();
			drag = { p: p, brush: true, box: box };
			p.brush = { a: ev.clientX - box.left, b: ev.clientX - box.left };
			ev.preventDefault();
		});
		p.scroll.addEventListener('scroll', function () {
			render();
			if (syncing) return;
			syncing = true;
			panels.forEach(function (q) { if (q !== p) q.scroll.scrollTop = p.scroll.scrollTop; });
			syncing = false;
		});
	});
	window.addEventListener('mousemove', function (ev) {
		if (!drag) return;
		if (drag.pan) {
			var dt = (ev.clientX - drag.x) / drag.p.scale;
			setView(drag.t0 - dt, drag.t1 - dt);
		} else if (drag.brush) {
			drag.p.brush.b = ev.clientX - drag.box.left;
			renderAxis(drag.p);
		}
	});
	window.addEventListener('mouseup', function () {
		if (!drag) return;
		var p = drag.p;
		p.svg.classList.remove('dragging');
		if (drag.brush) {
			var a = Math.min(p.brush.a, p.brush.b), b = Math.max(p.brush.a, p.brush.b);
			p.brush = null;
			if (b - a > 3) {
				setView(view.t0 + (a - LW) / p.scale, view.t0 + (b - LW) / p.scale);
			} else {
				renderAxis(p);
			}
		}
		drag = null;
	});
	window.addEventListener('resize', render);
	document.getElementById('zoom-in').onclick = function () { zoomAt((view.t0 + view.t1) / 2, 0.5); };
	document.getElementById('zoom-out').onclick = function () { zoomAt((view.t0 + view.t1) / 2, 2); };
	document.getElementById('zoom-reset').onclick = function () { setView(full0, full1); };

	function selectRow(r) {
		selectedRow = r;
		viewVersion++;
		panels.forEach(function (p) { p.scroll.scrollTop = Math.max(0, r * RH - 60); });
		render();
		document.getElementById('timelines').scrollIntoView({ behavior: 'smooth' });
	}

	/* The per-thread table, sortable by any column. */
	var COLS = [
		{ h: 'Thread', l: 1, f: function (r) { return rows[r].p; }, k: function (r) { return r; } },
		/* the .act id, what --thread-scale ID=X takes: the original's, else the simulated one's */
		{ h: 'ID', f: function (r) { var t = threadOf(0, r) || threadOf(1, r); return t ? String(t.id) : '-'; },
			k: function (r) { var t = threadOf(0, r) || threadOf(1, r); return t ? t.id : -1; } },
		{ h: 'Name', l: 1, f: function (r) { var t = threadOf(0, r) || threadOf(1, r); return t ? t.c : ''; } },
		{ h: 'Match', l: 1, f: function (r) { return rows[r].m.replace('_', ' '); } }
	];
	[['CPU', 0], ['Blocked', 1], ['Preempted', 2]].forEach(function (m) {
		COLS.push({ h: m[0] + ' orig', f: function (r) { return cellNs(rows[r].v[m[1]][0]); },
			k: function (r) { return rows[r].v[m[1]][0]; } });
		COLS.push({ h: m[0] + ' sim', f: function (r) { return cellNs(rows[r].v[m[1]][1]); },
			k: function (r) { return rows[r].v[m[1]][1]; } });
		COLS.push({ h: 'err', pct: 1, f: function (r) { return errCell(rows[r].v[m[1]]); },
			k: function (r) { return Math.abs(pctNum(rows[r].v[m[1]])); } });
	});
	[['Start \u0394', 3], ['End \u0394', 4]].forEach(function (m) {
		COLS.push({ h: m[0], pct: 1, f: function (r) { return delta(rows[r].v[m[1]]); },
			k: function (r) { var v = rows[r].v[m[1]]; return v[0] === null || v[1] === null ? 1e30 : Math.abs(v[1] - v[0]); } });
	});
	[['Runs o/s', 5], ['Sleeps o/s', 6]].forEach(function (m) {
		COLS.push({ h: m[0], f: function (r) { var v = rows[r].v[m[1]]; return cnt(v[0]) + '/' + cnt(v[1]); },
			k: function (r) { var v = rows[r].v[m[1]]; return Math.abs((v[1] || 0) - (v[0] || 0)); } });
	});
	if (D.has_memory) {
		COLS.push({ h: 'Heap max err', f: function (r) { var m = rows[r].mem; return m ? fmtBytes(m[0]) : '-'; },
			k: function (r) { var m = rows[r].mem; return m ? m[0] : -1; } });
		COLS.push({ h: 'Stack max err', f: function (r) { var m = rows[r].mem; return m ? fmtBytes(m[2]) : '-'; },
			k: function (r) { var m = rows[r].mem; return m ? m[2] : -1; } });
	}
	function cellNs(v) { return v === null ? '-' : fmtNs(v); }
	function cnt(v) { return v === null ? '-' : String(v); }
	function pctNum(v) {
		if (v[0] === null || v[1] === null) return 1e30;
		if (v[0] === 0) return v[1] === 0 ? 0 : 1e29;
		return (v[1] - v[0]) / Math.abs(v[0]) * 100;
	}
	function pct(v) {
		var x = pctNum(v);
		return x >= 1e30 ? '-' : x >= 1e29 ? 'new' : (x > 0 ? '+' : '') + x.toFixed(1) + '%';
	}
	/* A relative error on a small base says little (doc/compare.md): the difference there. */
	function smallBase(v) { return v[0] !== null && v[1] !== null && Math.abs(v[0]) < D.small_base_ns; }
	function errCell(v) { return smallBase(v) ? delta(v) : pct(v); }
	function delta(v) { return v[0] === null || v[1] === null ? '-' : fmtNs(v[1] - v[0], true); }

	var sortCol = 0, sortAsc = true;
	function renderTable() {
		var order = [], r;
		for (r = 0; r < NR; r++) order.push(r);
		var c = COLS[sortCol], key = c.k || function (x) { return c.f(x); };
		order.sort(function (a, b) {
			var x = key(a), y = key(b), d = x < y ? -1 : x > y ? 1 : a - b;
			return sortAsc ? d : -d;
		});
		var head = '<tr>' + COLS.map(function (c, i) {
			return '<th class="' + (c.l ? 'l ' : '') + (i === sortCol ? 'sorted' + (sortAsc ? ' asc' : '') : '') +
				'" data-col="' + i + '">' + esc(c.h) + '</th>';
		}).join('') + '</tr>';
		var body = order.map(function (r) {
			return '<tr class="' + rows[r].m + '" data-row="' + r + '">' + COLS.map(function (c) {
				var s = c.f(r), cls = c.l ? 'l' : '';
				if (c.pct && s[0] === '+') cls += ' pos';
				else if (c.pct && s[0] === '-' && s.length > 1) cls += ' neg';
				return '<td class="' + cls + '">' + esc(s) + '</td>';
			}).join('') + '</tr>';
		}).join('');
		var tbl = document.getElementById('threads');
		tbl.innerHTML = '<thead>' + head + '</thead><tbody>' + body + '</tbody>';
		tbl.querySelectorAll('th').forEach(function (th) {
			th.onclick = function () {
				var i = +th.getAttribute('data-col');
				if (i === sortCol) sortAsc = !sortAsc; else { sortCol = i; sortAsc = i < 3; }
				renderTable();
			};
		});
		tbl.querySelector('tbody').onclick = function (ev) {
			var tr = ev.target.closest('tr');
			if (tr) selectRow(+tr.getAttribute('data-row'));
		};
	}

	/* Memory curves: desired (original) against measured (simulated), like the memory paper. */
	function memCurve(t, which, x, y) {
		var h = t ? t.h || [] : [], d = '', lastPx = null, lo = 0, hi = 0, last = 0, n = 0;
		if (!h.length) return '';
		d = 'M' + x(t.s).toFixed(1) + ' ' + y(0).toFixed(1);
		for (var i = 0; i + 2 < h.length; i += 3) {
			var px = Math.round(x(h[i])), v = h[i + 1 + which];
			if (px === lastPx) { lo = Math.min(lo, v); hi = Math.max(hi, v); last = v; continue; }
			if (lastPx !== null && (lo !== last || hi !== last)) {
				d += 'V' + y(lo).toFixed(1) + 'V' + y(hi).toFixed(1) + 'V' + y(last).toFixed(1);
			}
			d += 'H' + px + 'V' + y(v).toFixed(1);
			lastPx = px; lo = hi = last = v; n++;
		}
		d += 'H' + x(Math.max(t.e_, h[h.length - 3])).toFixed(1);
		return d;
	}

	function renderMemory() {
		var sec = document.getElementById('memory');
		if (!sec) return;
		var sel = document.getElementById('mem-thread'), memRows = [];
		for (var r = 0; r < NR; r++) {
			var a = threadOf(0, r), b = threadOf(1, r);
			if ((a && a.h && a.h.length) || (b && b.h && b.h.length)) memRows.push(r);
		}
		if (!memRows.length) { sec.style.display = 'none'; return; }
		function peak(r) {
			var m = 0;
			[0, 1].forEach(function (s) {
				var t = threadOf(s, r), h = t && t.h ? t.h : [];
				for (var i = 0; i + 2 < h.length; i += 3) m = Math.max(m, h[i + 1], h[i + 2]);
			});
			return m;
		}
		memRows.sort(function (a, b) { return peak(b) - peak(a) || a - b; });
		sel.innerHTML = memRows.map(function (r) {
			return '<option value="' + r + '">' + esc(rowName(r)) + '</option>';
		}).join('');
		/* A curve as its sequence of changes: x = change number, as compare counts points. */
		function changeSeries(t, which) {
			var h = t.h || [], out = [], prev = 0, k = 0;
			for (var i = 0; i + 2 < h.length; i += 3) {
				var v = h[i + 1 + which];
				if (v !== prev) { k++; out.push(k, v, v); prev = v; }
			}
			return { s: 0, e_: k, h: out };
		}
		var xsel = document.getElementById('mem-x');
		function draw() {
			var r = +sel.value, W = Math.max(400, sec.clientWidth - 4), H = 200, ML = 70, MB = 22;
			var byPoint = xsel.value === 'points';
			var fmtX = byPoint ? function (v) { return 'point ' + Math.round(v); } : fmtNs;
			['heap', 'stack'].forEach(function (name, which) {
				if (!document.getElementById('mem-' + name)) return; /* no data: left out */
				var ts = [], t0 = Infinity, t1 = -Infinity, vmax = 1;
				[0, 1].forEach(function (s) {
					var t = threadOf(s, r);
					if (!t) return;
					ts[s] = byPoint ? changeSeries(t, which) : t;
					t0 = Math.min(t0, ts[s].s);
					t1 = Math.max(t1, ts[s].e_);
					var h = ts[s].h || [];
					for (var i = 0; i + 2 < h.length; i += 3) {
						vmax = Math.max(vmax, h[i + 1 + which]);
						t1 = Math.max(t1, h[i]);
					}
				});
				var x = function (t) { return ML + (t - t0) / Math.max(1, t1 - t0) * (W - ML - 10); };
				var y = function (v) { return 8 + (1 - v / vmax) * (H - MB - 8); };
				var out = ['<line class="axisline" x1="' + ML + '" x2="' + (W - 10) + '" y1="' + y(0) + '" y2="' + y(0) + '"/>',
					'<line class="axisline" x1="' + ML + '" x2="' + ML + '" y1="8" y2="' + y(0) + '"/>',
					'<text x="4" y="14">' + esc(fmtBytes(vmax)) + '</text>',
					'<text x="4" y="' + y(0) + '">0</text>',
					'<text x="' + ML + '" y="' + (H - 6) + '">' + esc(fmtX(t0)) + '</text>',
					'<text x="' + (W - 10) + '" y="' + (H - 6) + '" text-anchor="end">' + esc(fmtX(t1)) + '</text>',
					'<text x="' + (W / 2) + '" y="' + (H - 6) + '" text-anchor="middle">' + name +
					(byPoint ? ' after each change (the points compare compares)' :
						' in use over time (from the root start)') + '</text>'];
				[0, 1].forEach(function (s) {
					var d = memCurve(ts[s], which, x, y);
					if (d) out.push('<path class="' + SIDES[s] + '" d="' + d + '"/>');
				});
				var svg = document.getElementById('mem-' + name);
				svg.setAttribute('width', W);
				svg.setAttribute('height', H);
				svg.innerHTML = out.join('');
				svg.memHover = { ts: ts, which: which, name: name, row: r, t0: t0,
					t1: t1, ML: ML, W: W, fmtX: fmtX };
			});
			var m = rows[r].mem;
			document.getElementById('mem-err').textContent = m ?
				'This thread: heap max error ' + fmtBytes(m[0]) + ', mean ' + fmtBytes(m[1]) +
				'; stack max error ' + fmtBytes(m[2]) + ', mean ' + fmtBytes(m[3]) + '.' :
				'Only one run has memory samples for this thread.';
		}
		/* Value of a memory curve at time t (the sample at or before t; 0 before the first). */
		function valueAt(t, which, tm) {
			var h = t && t.h ? t.h : [], lo = 0, hi = h.length / 3;
			while (lo < hi) {
				var mid = (lo + hi) >> 1;
				if (h[3 * mid] <= tm) lo = mid + 1; else hi = mid;
			}
			return lo ? h[3 * (lo - 1) + 1 + which] : 0;
		}
		['heap', 'stack'].forEach(function (name) {
			var svg = document.getElementById('mem-' + name);
			if (!svg) return;
			svg.addEventListener('mousemove', function (ev) {
				var m = svg.memHover, box = svg.getBoundingClientRect();
				if (!m) return;
				var tm = m.t0 + (ev.clientX - box.left - m.ML) / Math.max(1, m.W - m.ML - 10) * (m.t1 - m.t0);
				var lines = [rowName(m.row) + ' | ' + m.name + ' at ' + m.fmtX(tm)];
				[0, 1].forEach(function (s) {
					if (m.ts[s]) lines.push((s ? 'measured (simulated) ' : 'desired (original) ') +
						fmtBytes(valueAt(m.ts[s], m.which, tm)));
				});
				showTip(ev, lines);
			});
			svg.addEventListener('mouseleave', hideTip);
		});
		sel.onchange = draw;
		xsel.onchange = draw;
		draw();
		window.addEventListener('resize', draw);
	}

	var t0 = performance.now();
	panels.forEach(measure);
	panels.forEach(renderPanel);
	document.body.setAttribute('data-timeline-ms', Math.round(performance.now() - t0));
	renderTable();
	renderMemory();
	document.body.setAttribute('data-rendered', '1');
	if (location.hash === '#selftest') selfTest();

	/*
	 * Exercises zoom, redraw and hover the way a user would (tests open the report with
	 * #selftest in headless Chromium, where no one moves a mouse) and reports in
	 * data-selftest: "ok", or what failed.
	 */
	function selfTest() {
		var fails = [], p = panels[0], r = rows.findIndex(function (x) { return x.i[0] >= 0; });
		panels.forEach(measure); /* the page's first layout, not part of a zoom */
		var span = view.t1 - view.t0, z0 = performance.now();
		zoomAt((view.t0 + view.t1) / 2, 0.5);
		panels.forEach(measure);
		panels.forEach(renderVisible);
		document.body.setAttribute('data-zoom-ms', Math.round(performance.now() - z0));
		if (Math.abs((view.t1 - view.t0) - span / 2) > span * 1e-6) fails.push('zoom span');
		if (p.rowVer[r] !== viewVersion) fails.push('redraw after zoom');
		setView(full0, full1);
		panels.forEach(measure);
		panels.forEach(renderVisible);
		/* hover the middle of a segment at least 4 px wide with no mark within 8 px */
		var hr = -1, hi = -1;
		for (var q = 0; q < Math.min(NR, 200) && hr < 0; q++) {
			var tq = threadOf(0, q);
			for (var i = 0; tq && i < Math.min(tq.nseg, 200) && hr < 0; i++) {
				var c = (tq.b[i] + tq.e[i]) / 2;
				if ((tq.e[i] - tq.b[i]) * p.scale >= 4 &&
					!tq.mt.some(function (m) { return Math.abs(m - c) * p.scale < 8; })) {
					hr = q; hi = i;
				}
			}
		}
		if (hr >= 0) {
			var th = threadOf(0, hr), box = p.svg.getBoundingClientRect();
			p.scroll.scrollTop = Math.max(0, hr * RH - 10);
			box = p.svg.getBoundingClientRect();
			hover(p, { clientX: box.left + X(p, (th.b[hi] + th.e[hi]) / 2),
				clientY: box.top + hr * RH + RH / 2 });
			if (tip.textContent.indexOf('state: ' + KIND[th.k[hi]]) < 0) fails.push('hover: ' + tip.textContent);
			hideTip();
		}
		var ms = document.getElementById('mem-heap') || document.getElementById('mem-stack');
		if (ms && ms.memHover) {
			var mb = ms.getBoundingClientRect();
			ms.dispatchEvent(new MouseEvent('mousemove', { clientX: mb.left + mb.width / 2,
				clientY: mb.top + 20 }));
			if (tip.textContent.indexOf('desired (original)') < 0) fails.push('memory hover');
			hideTip();
			var xs = document.getElementById('mem-x');
			xs.value = 'points';
			xs.onchange();
			if (!ms.querySelector('path.orig') || ms.textContent.indexOf('point') < 0) {
				fails.push('memory by point');
			}
		} else if (document.getElementById('memory')) {
			fails.push('memory chart missing');
		}
		selectRow(r);
		panels.forEach(measure);
		panels.forEach(renderVisible);
		if (!p.rowEls[r].querySelector('.sel')) fails.push('select');
		document.body.setAttribute('data-selftest', fails.length ? fails.join('; ') : 'ok');
	}
})();
