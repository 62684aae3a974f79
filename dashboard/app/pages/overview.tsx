import { useMemo, useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api.ts';
import { DailyChart, type ChartSeries } from '../components/chart.tsx';
import { ErrorText, PageTitle, shortId } from '../components/ui.tsx';
import { amounts, dayAfter, dayStart, isoDay, money, percent } from '../format.ts';
import { useLoad } from '../hooks.ts';

type DailyFigures = Schemas['AnalyticsDay'];

const presets = [7, 30, 90] as const;
const dayMs = 86_400_000;

/** The chosen days, inclusive: the API gets `[first midnight, the midnight after the last day)`. */
function presetRange(days: number) {
  const today = isoDay(Date.now());
  return { from: isoDay(Date.parse(`${today}T00:00:00Z`) - (days - 1) * dayMs), to: today };
}

export function OverviewPage() {
  const [preset, setPreset] = useState<string>('30');
  const [range, setRange] = useState(presetRange(30));
  const [summaryStoreId, setSummaryStoreId] = useState('');
  // Generations made with a secret key belong to no store: the charts start with the whole organization.
  const [chartStoreId, setChartStoreId] = useState('');

  const stores = useLoad(() => unwrap(api.GET('/v1/stores', { params: { query: { limit: 100 } } })), 'stores');
  const summaryStore = summaryStoreId || stores.value?.data[0]?.id || '';
  const query = { from: dayStart(range.from), to: dayAfter(range.to) };
  const valid = range.from <= range.to;
  const rangeKey = `${range.from}|${range.to}`;

  const daily = useLoad(
    () =>
      valid
        ? unwrap(
            api.GET('/v1/analytics/daily', { params: { query: { ...query, storeId: chartStoreId || undefined } } }),
          )
        : Promise.reject(new Error('The first day must not be after the last.')),
    `${chartStoreId}|${rangeKey}`,
  );
  const summary = useLoad(
    () =>
      summaryStore && valid
        ? unwrap(api.GET('/v1/analytics/summary', { params: { query: { storeId: summaryStore, ...query } } }))
        : Promise.resolve(null),
    `${summaryStore}|${rangeKey}`,
  );
  const storeOptions = (stores.value?.data ?? []).map((option) => (
    <option key={option.id} value={option.id}>
      {option.name} · {shortId(option.id)}
    </option>
  ));

  return (
    <>
      <PageTitle>Overview</PageTitle>
      <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Range">
        <label>
          Range
          <select
            value={preset}
            onChange={(event) => {
              const value = event.currentTarget.value;
              setPreset(value);
              if (value !== 'custom') setRange(presetRange(Number(value)));
            }}
          >
            {presets.map((days) => (
              <option key={days} value={String(days)}>
                Last {days} days
              </option>
            ))}
            <option value="custom">Custom</option>
          </select>
        </label>
        {preset === 'custom' && (
          <>
            <label>
              From
              <input
                type="date"
                value={range.from}
                required
                onChange={(event) =>
                  event.currentTarget.value && setRange({ ...range, from: event.currentTarget.value })
                }
              />
            </label>
            <label>
              To (inclusive)
              <input
                type="date"
                value={range.to}
                required
                onChange={(event) => event.currentTarget.value && setRange({ ...range, to: event.currentTarget.value })}
              />
            </label>
          </>
        )}
      </form>
      <ErrorText error={stores.error} />
      <p class="muted">Days are UTC days, from midnight to midnight UTC.</p>

      <section aria-labelledby="summary-heading">
        <h2 id="summary-heading">One store's widgets and orders</h2>
        <p class="muted">
          What shoppers did with one store's widgets in the range, and the orders the store reported. Generations
          created through the API with a secret key belong to no store: the charts below count them (with “All stores
          and API generations”), this summary does not.
        </p>
        <div class="filters">
          <label>
            Store of the summary
            <select value={summaryStore} onChange={(event) => setSummaryStoreId(event.currentTarget.value)}>
              {storeOptions}
            </select>
          </label>
        </div>
        <ErrorText error={summary.error} />
        {summary.value && <Summary summary={summary.value} />}
        {!summary.value && !summary.loading && !summary.error && <p class="muted">Add a store to see its figures.</p>}
      </section>

      <section aria-labelledby="charts-heading">
        <h2 id="charts-heading">Per day</h2>
        <p class="muted">
          The whole organization, API generations included, or one store (its widgets' generations and its orders). Away
          from the pointer, each legend shows the range's totals; point at a day for its numbers.
        </p>
        <div class="filters">
          <label>
            Store of the charts
            <select value={chartStoreId} onChange={(event) => setChartStoreId(event.currentTarget.value)}>
              <option value="">All stores and API generations</option>
              {storeOptions}
            </select>
          </label>
        </div>
        <ErrorText error={daily.error} />
        {daily.loading && !daily.value && <p class="muted">Loading…</p>}
        {daily.value && <Charts days={daily.value.data} />}
      </section>
    </>
  );
}

/** A conversion rate; without visitors to divide by there is none (the API says null). */
const rate = (fraction: number | null) => (fraction === null ? 'none (no visitors)' : percent(fraction));

function Summary({ summary }: { summary: Schemas['AnalyticsSummary'] }) {
  const { visitors, conversionRate } = summary;
  return (
    <>
      <dl class="cards">
        <div>
          <dt>Widget visualizations in this store</dt>
          <dd>{summary.visualizations}</dd>
          <dd class="card-note">
            complete generations made through the store's widgets, for {summary.uniqueVisitorsVisualized} visitor
            {summary.uniqueVisitorsVisualized === 1 ? '' : 's'}
          </dd>
        </div>
        <div>
          <dt>Orders placed</dt>
          <dd>
            {summary.conversions} <span class="muted">({summary.attributedConversions} attributed)</span>
          </dd>
          <dd class="card-note">
            orders dated in the range, refunded and cancelled ones left out; attributed: following a visualization of
            the same visitor within the store's attribution window
          </dd>
        </div>
        <div>
          <dt>Attributed revenue</dt>
          <dd>{Object.keys(summary.attributedRevenue).length ? amounts(summary.attributedRevenue) : 'none'}</dd>
          <dd class="card-note">the attributed orders' items whose product was visualized, not whole orders</dd>
        </div>
      </dl>
      <table class="rates">
        <caption>Conversion rate of visitors who visualized against those who did not</caption>
        <thead>
          <tr>
            <th scope="col">Visitors</th>
            <th scope="col">Seen in the range</th>
            <th scope="col">Who ordered</th>
            <th scope="col">Conversion rate</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Visualized</th>
            <td class="number">{visitors.visualized}</td>
            <td class="number">{visitors.visualizedConverted}</td>
            <td class="number">
              <strong>{rate(conversionRate.visualized)}</strong>
            </td>
          </tr>
          <tr>
            <th scope="row">Did not visualize</th>
            <td class="number">{visitors.notVisualized}</td>
            <td class="number">{visitors.notVisualizedConverted}</td>
            <td class="number">{rate(conversionRate.notVisualized)}</td>
          </tr>
        </tbody>
      </table>
      <p class="muted">
        Distinct visitors: who ordered ÷ seen. The service records no page views, so “seen” means visitors it heard of
        (they visualized, reported an order or were identified); the rate of those who did not visualize is an upper
        bound. Orders without a visitor id count above, not here.
      </p>
    </>
  );
}

function Charts({ days }: { days: DailyFigures[] }) {
  const charts = useMemo(() => {
    const dates = days.map((day) => day.date);
    const currencies = [...new Set(days.flatMap((day) => Object.keys(day.attributedRevenue)))].sort();
    const generations: ChartSeries[] = [
      { label: 'Complete', values: days.map((day) => day.generations.complete) },
      { label: 'Failed', values: days.map((day) => day.generations.failed) },
      { label: 'Processing', values: days.map((day) => day.generations.processing) },
    ];
    const credits: ChartSeries[] = [{ label: 'Credits spent', values: days.map((day) => day.creditsSpent) }];
    const conversions: ChartSeries[] = [
      { label: 'Orders', values: days.map((day) => day.conversions) },
      { label: 'Attributed', values: days.map((day) => day.attributedConversions) },
    ];
    const revenue: ChartSeries[] = (currencies.length ? currencies : ['USD']).map((currency) => ({
      label: `Attributed revenue (${currency})`,
      values: days.map((day) => (day.attributedRevenue[currency] ?? 0) / 100),
      format: (value: number) => money(Math.round(value * 100), currency),
    }));
    return { dates, generations, credits, conversions, revenue };
  }, [days]);
  return (
    <div class="charts">
      <DailyChart
        id="chart-generations"
        title="Generations per day by status"
        note="Generations created each day, by the status they have now."
        days={charts.dates}
        series={charts.generations}
      />
      <DailyChart
        id="chart-credits"
        title="Credits spent per day"
        note="Credits charged for each day's generations; a failed one's are refunded, so not counted."
        days={charts.dates}
        series={charts.credits}
      />
      <DailyChart
        id="chart-conversions"
        title="Conversions per day"
        note="Orders by the day they were placed, refunded and cancelled ones left out; attributed: following a visualization."
        days={charts.dates}
        series={charts.conversions}
      />
      <DailyChart
        id="chart-revenue"
        title="Attributed revenue per day"
        note="The attributed orders' items whose product was visualized, by the day the order was placed."
        days={charts.dates}
        series={charts.revenue}
      />
    </div>
  );
}
