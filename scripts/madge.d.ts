// madge ships no types; the part of its API (lib/api.js) scripts/check-cycles.ts uses.
declare module 'madge' {
  interface MadgeConfig {
    readonly fileExtensions?: readonly string[];
    readonly tsConfig?: string;
    readonly excludeRegExp?: readonly RegExp[];
  }
  interface MadgeResult {
    /** Each cycle as the files in it, relative to the base directory. */
    circular(): string[][];
    /** Every file and what it imports. */
    obj(): Record<string, string[]>;
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string | readonly string[], config?: MadgeConfig): Promise<MadgeResult>;
}
