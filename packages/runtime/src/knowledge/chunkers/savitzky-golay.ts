/**
 * @module knowledge/chunkers/savitzky-golay
 * Savitzky–Golay filtering: each point is replaced by the value (or slope) at that point of the
 * least-squares polynomial fitted to the `window` points around it. The first and last points
 * use the polynomial fitted to the first or last full window, as scipy's `mode='interp'` does.
 * SemanticChunker smooths its similarity series with it and finds minima from its slope.
 */

/** Solves the square system `m x = v` by Gaussian elimination with partial pivoting. */
function solve(m: number[][], v: number[]): number[] {
  const n = v.length;
  const a = m.map((row, i) => [...row, v[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r]![col]! / p;
      for (let c = col; c <= n; c++) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}

/**
 * Weights w such that `sum(w[j] * y[j])` over a window of points at offsets -h..h is the fitted
 * polynomial's value (deriv 0) or slope (deriv 1) at offset `t`.
 */
export function savgolWeights(window: number, order: number, t: number, deriv: 0 | 1): number[] {
  const h = (window - 1) / 2;
  const xs = Array.from({ length: window }, (_, j) => j - h);
  const terms = order + 1;
  // Normal equations of the fit: (AᵀA) z = v, where v evaluates the polynomial (or slope) at t.
  const ata = Array.from({ length: terms }, (_row, r) => Array.from({ length: terms }, (_col, c) => xs.reduce((sum, x) => sum + x ** (r + c), 0)));
  const v = Array.from({ length: terms }, (_, k) => (deriv === 0 ? t ** k : k === 0 ? 0 : k * t ** (k - 1)));
  const z = solve(ata, v);
  return xs.map((x) => z.reduce((sum, zk, k) => sum + zk * x ** k, 0));
}

/** The filtered series (same length); a series shorter than the window is returned unchanged. */
export function savgol(y: readonly number[], window: number, order: number, deriv: 0 | 1 = 0): number[] {
  const n = y.length;
  if (n < window) return deriv === 0 ? [...y] : y.map(() => 0);
  const h = (window - 1) / 2;
  const centre = savgolWeights(window, order, 0, deriv);
  const apply = (weights: readonly number[], from: number) => weights.reduce((sum, w, j) => sum + w * y[from + j]!, 0);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i < h) out.push(apply(savgolWeights(window, order, i - h, deriv), 0));
    else if (i >= n - h) out.push(apply(savgolWeights(window, order, i - (n - 1 - h), deriv), n - window));
    else out.push(apply(centre, i - h));
  }
  return out;
}

/**
 * Local minima of a smoothed series, found where its slope turns from negative to non-negative,
 * placed between the two points by linear interpolation of the slope. Each is reported with
 * its position (fractional) and the series' interpolated value there.
 */
export function interpolatedMinima(values: readonly number[], slopes: readonly number[]): { at: number; value: number }[] {
  const minima: { at: number; value: number }[] = [];
  for (let i = 0; i + 1 < slopes.length; i++) {
    const a = slopes[i]!;
    const b = slopes[i + 1]!;
    if (!(a < 0 && b >= 0)) continue;
    const f = a / (a - b);
    minima.push({ at: i + f, value: values[i]! + f * (values[i + 1]! - values[i]!) });
  }
  return minima;
}
