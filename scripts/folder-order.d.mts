/** Types of folder-order.mjs (plain JavaScript, shared by both packages' folder-order tests). */
export function importGraph(root: string, planted?: Record<string, string>): Map<string, Set<string>>;
export function importCycles(root: string, graph: Map<string, Set<string>>): string[];
export function checkFolderOrder(options: { root: string; allowed: Record<string, readonly string[]>; planted?: Record<string, string> }): string[];
