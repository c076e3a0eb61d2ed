/**
 * What a twin started, stopped in reverse order when it closes (or when starting it failed half way); a
 * failure to stop one part is logged and the others still stop.
 */
export class Cleanups {
  private readonly steps: (() => Promise<void> | void)[] = [];

  constructor(private readonly log: (line: string) => void) {}

  push(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  async closeAll(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.log(`close: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
