import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { ScrollTable } from './ui.tsx';

export interface ChartSeries {
  label: string;
  values: number[];
  /** How a value reads in the table and the legend. */
  format?: (value: number) => string;
}

/**
 * Each series differs by more than colour: its dash pattern, its point style (filled, hollow,
 * large) and line width, so a reader who cannot tell the colours apart still can tell the lines
 * apart; the legend names them, and the table under the chart holds every number.
 */
const styles = [
  { stroke: '#1d4ed8', dash: undefined, border: 'solid', width: 2.5, fill: '#1d4ed8', size: 7 },
  { stroke: '#b45309', dash: [8, 4], border: 'dashed', width: 2, fill: '#ffffff', size: 8 },
  { stroke: '#047857', dash: [2, 3], border: 'dotted', width: 2, fill: '#047857', size: 5 },
  { stroke: '#7c3aed', dash: [12, 3, 2, 3], border: 'double', width: 2, fill: '#ffffff', size: 6 },
];

const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');

const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);

/**
 * A line chart of values per UTC day (uPlot, drawn on a canvas), followed by its data as a table.
 * `note` says what the lines count. Away from the cursor the legend shows the range's totals (uPlot
 * asks for the values of no point then), so it never reads "—" while there is data.
 */
export function DailyChart({
  title,
  note,
  days,
  series,
  id,
}: {
  title: string;
  note: string;
  days: string[];
  series: ChartSeries[];
  id: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 220,
        tzDate: utc,
        // The legend's marks repeat each line's pattern as a border style (hollow, so the pattern shows), not only its colour.
        legend: {
          markers: {
            width: 3,
            fill: '#ffffff',
            dash: (_self: uPlot, index: number) => styles[(index - 1 + styles.length) % styles.length]!.border,
          },
        },
        scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          { stroke: '#3f4652', grid: { stroke: '#e5e7eb' } },
          { stroke: '#3f4652', grid: { stroke: '#e5e7eb' }, size: 56 },
        ],
        series: [
          {
            label: 'Day',
            value: (_self, value, _series, index) =>
              index === null ? `total of ${days.length} days` : new Date(value * 1000).toISOString().slice(0, 10),
          },
          ...series.map((line, index) => {
            const style = styles[index % styles.length]!;
            return {
              label: line.label,
              stroke: style.stroke,
              width: style.width,
              dash: style.dash,
              value: (_self: uPlot, value: number | null, _series: number, index: number | null) =>
                (line.format ?? String)(index === null ? total(line.values) : (value ?? 0)),
              points: { show: true, size: style.size, fill: style.fill, stroke: style.stroke, width: 2 },
            };
          }),
        ],
      },
      [x, ...series.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, element.clientWidth), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series]);

  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <p class="muted chart-note">{note}</p>
      </figcaption>
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`${title}: ${series.map((line) => `${line.label} ${(line.format ?? String)(total(line.values))} in total`).join('; ')}. The table below lists each day.`}
      />
      <details>
        <summary>{title}: data table</summary>
        <ScrollTable label={`${title}: data table`} grid>
          <table>
            <caption class="visually-hidden">{title}, per UTC day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {series.map((line) => (
                  <th scope="col" key={line.label}>
                    {line.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, row) => (
                <tr key={day}>
                  <th scope="row">{day}</th>
                  {series.map((line) => (
                    <td key={line.label} class="number">
                      {(line.format ?? String)(line.values[row] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </details>
    </figure>
  );
}
