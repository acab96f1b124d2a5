import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sumBy } from './prometheus-text.js';

const text = `# HELP apiserver_flowcontrol_dispatched_requests_total [BETA] Number of requests executed
# TYPE apiserver_flowcontrol_dispatched_requests_total counter
apiserver_flowcontrol_dispatched_requests_total{flow_schema="bench-noderepair",priority_level="bench"} 42
apiserver_flowcontrol_dispatched_requests_total{flow_schema="bench-capi",priority_level="bench"} 1.5e+03
apiserver_flowcontrol_dispatched_requests_total{priority_level="bench",flow_schema="bench-capi"} 7 1700000000000
apiserver_request_total{code="200",component="apiserver",resource="nodes",verb="LIST"} 3
weird_label{path="a\\"b\\\\c\\nd"} 1
no_labels_total 12
gauge_inf +Inf
`;

describe('parsePrometheusText', () => {
  it('reads names, labels (in any order, escaped) and values, skipping comments', () => {
    const s = parsePrometheusText(text);
    expect(s).toHaveLength(7);
    expect(s[0]).toEqual({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      labels: { flow_schema: 'bench-noderepair', priority_level: 'bench' },
      value: 42,
    });
    expect(s[1]?.value).toBe(1500);
    expect(s[2]?.value).toBe(7); // the timestamp is not the value
    expect(s[4]?.labels['path']).toBe('a"b\\c\nd');
    expect(s[5]).toEqual({ name: 'no_labels_total', labels: {}, value: 12 });
    expect(s[6]?.value).toBe(Infinity);
  });

  it('sums a counter by one label', () => {
    const by = sumBy(
      parsePrometheusText(text),
      'apiserver_flowcontrol_dispatched_requests_total',
      'flow_schema',
    );
    expect(Object.fromEntries(by)).toEqual({ 'bench-noderepair': 42, 'bench-capi': 1507 });
  });

  it('reads NaN and infinities in any case, as Prometheus does (prom-client prints "Nan")', () => {
    const [lag, up, down] = parsePrometheusText(
      'nodejs_eventloop_lag_mean_seconds Nan\nb +Inf\nc -inf\n',
    );
    expect(lag?.value).toBeNaN();
    expect(up?.value).toBe(Infinity);
    expect(down?.value).toBe(-Infinity);
  });

  it('names the bad line when the text is not the exposition format', () => {
    expect(() => parsePrometheusText('{x="1"} 2')).toThrow(
      /does not start with a metric name: \{x="1"\} 2/,
    );
    expect(() => parsePrometheusText('m{x="1} 2')).toThrow(/unterminated label value/);
    expect(() => parsePrometheusText('m{x=1} 2')).toThrow(/expected ="value" after label x/);
    expect(() => parsePrometheusText('m 12abc')).toThrow(/bad sample value "12abc"/);
  });
});
