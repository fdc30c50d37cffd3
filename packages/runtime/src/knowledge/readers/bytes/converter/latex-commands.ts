/**
 * @module knowledge/readers/bytes/converter/latex-commands
 * What the LaTeX scanner knows of commands and environments by name: section levels, commands
 * that keep their text, drop with their arguments or stand for a symbol or accent, and the
 * environments read as code, math, tables or lists. A name in none of them is unknown: the
 * command goes and its braced arguments' text stays.
 */

export const SECTION_LEVELS: Record<string, number> = { part: 1, chapter: 1, section: 2, subsection: 3, subsubsection: 4, paragraph: 5, subparagraph: 6 };
/** Commands whose (last) argument is plain text. */
export const KEEP_TEXT = new Set([
  'textbf', 'textit', 'emph', 'texttt', 'textsc', 'textrm', 'textsf', 'textup', 'textmd', 'textnormal', 'textsl', 'underline', 'uline', 'mbox', 'hbox', 'text', 'textsuperscript', 'textsubscript', 'enquote', 'mathrm', 'mathbf', 'operatorname',
]);
/** Commands removed with their arguments: `[name, brace arguments]`. */
export const DROP: Record<string, number> = {
  label: 1, index: 1, vspace: 1, hspace: 1, usepackage: 1, documentclass: 1, bibliographystyle: 1, bibliography: 1, pagestyle: 1, thispagestyle: 1,
  setlength: 2, addtolength: 2, setcounter: 2, addtocounter: 2, newcommand: 2, renewcommand: 2, providecommand: 2, newenvironment: 3, renewenvironment: 3,
  DeclareMathOperator: 2, newtheorem: 2, graphicspath: 1, input: 1, include: 1, hypersetup: 1, geometry: 1, definecolor: 3, color: 1, fontsize: 2, linespread: 1,
  title: 1, author: 1, date: 1, thanks: 1, pagenumbering: 1, includegraphics: 1, bibliographyitem: 1, nocite: 1, phantomsection: 0, lstset: 1,
};
export const SYMBOLS: Record<string, string> = {
  ldots: '…', dots: '…', textellipsis: '…', LaTeX: 'LaTeX', TeX: 'TeX', LaTeXe: 'LaTeX2e', textendash: '–', textemdash: '—', S: '§', P: '¶', copyright: '©', textregistered: '®',
  texttrademark: '™', pounds: '£', euro: '€', textdegree: '°', ss: 'ß', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', o: 'ø', O: 'Ø', aa: 'å', AA: 'Å', l: 'ł', L: 'Ł', i: 'ı', quad: ' ', qquad: ' ',
  par: '\n\n', newline: '\n', linebreak: '\n', today: '',
};
export const ACCENTS: Record<string, string> = { "'": '\u0301', '`': '\u0300', '^': '\u0302', '"': '\u0308', '~': '\u0303', '=': '\u0304', '.': '\u0307', u: '\u0306', v: '\u030c', H: '\u030b', c: '\u0327', k: '\u0328', r: '\u030a' };
export const CODE_ENVIRONMENTS = new Set(['verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'alltt', 'comment']);
export const MATH_ENVIRONMENTS = new Set(['equation', 'equation*', 'align', 'align*', 'gather', 'gather*', 'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'math', 'flalign', 'flalign*']);
export const TABLE_ENVIRONMENTS = new Set(['tabular', 'tabular*', 'tabularx', 'longtable', 'tabulary', 'array']);
export const LIST_ENVIRONMENTS = new Set(['itemize', 'enumerate', 'description']);
/** Mandatory arguments of environments that are not content (column specs, widths). */
export const ENVIRONMENT_ARGS: Record<string, number> = { tabular: 1, 'tabular*': 2, tabularx: 2, longtable: 1, tabulary: 2, array: 1, minipage: 1, thebibliography: 1, multicols: 1, minted: 1, wrapfigure: 2, subfigure: 1 };
