// Offsets → 1-based line and column (UTF-16 units, a leading BOM not counted as a column).
export class LineIndex {
  private readonly starts: number[] = [0];
  private readonly bom: boolean;
  constructor(text: string) {
    this.bom = text.charCodeAt(0) === 0xfeff;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const lineStart = lo === 0 && this.bom ? 1 : this.starts[lo]!;
    return { line: lo + 1, column: Math.max(0, offset - lineStart) + 1 };
  }
}
