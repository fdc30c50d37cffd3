/**
 * Usage per day over the last 14 days (`GET /metrics`): a bar per day of tokens in and out, and
 * the same numbers in a table (what a screen reader reads; the chart is an image of it).
 */
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';

const DAY = 86_400_000;
const WIDTH = 640;
const HEIGHT = 160;

export function UsageChart() {
  const metrics = useAsync(() => {
    const to = Date.now();
    return unwrap(api.GET('/metrics', { params: { query: { from: to - 14 * DAY, to } } }));
  }, []);
  const days = metrics.data?.days ?? [];
  const max = Math.max(1, ...days.map((d) => d.input_tokens + d.output_tokens));
  const slot = days.length ? WIDTH / days.length : WIDTH;
  // A thin bar even when there is one day: a full-width block reads as a box, not a bar.
  const bar = Math.min(48, Math.max(4, slot * 0.7));
  const scale = (tokens: number) => (tokens / max) * (HEIGHT - 20);
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage per day</h2>
      <ErrorText message={metrics.error} />
      {days.length === 0 && !metrics.loading ? <p class="muted">No finished runs in the last 14 days.</p> : null}
      {days.length > 0 ? (
        <>
          <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Tokens per day: input in blue, output in orange" data-testid="usage-chart">
            {days.map((d, i) => {
              const x = i * slot + (slot - bar) / 2;
              const inH = scale(d.input_tokens);
              const outH = scale(d.output_tokens);
              return (
                <g key={d.date}>
                  <rect class="bar-in" x={x} y={HEIGHT - inH} width={bar} height={inH} />
                  <rect class="bar-out" x={x} y={HEIGHT - inH - outH} width={bar} height={outH} />
                </g>
              );
            })}
          </svg>
          <table data-testid="usage-table">
            <caption class="visually-hidden">Usage per day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Runs</th>
                <th scope="col">Errors</th>
                <th scope="col">Tokens in</th>
                <th scope="col">Tokens out</th>
                <th scope="col">p95 latency</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <td>{d.date}</td>
                  <td>{d.runs}</td>
                  <td>{d.errors}</td>
                  <td>{d.input_tokens}</td>
                  <td>{d.output_tokens}</td>
                  <td>{d.p95_latency_ms} ms</td>
                  <td>{d.cost === null ? 'unpriced' : `$${d.cost.toFixed(4)}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
