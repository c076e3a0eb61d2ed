import { describe, expect, it } from 'vitest';
import { parseEnvText } from './env-file.js';

describe('env files', () => {
  it('reads export lines, bare and quoted values, and skips comments', () => {
    expect(
      parseEnvText(
        [
          '# prod account',
          'export AWS_PROFILE=prod',
          "AWS_REGION='eu-west-1'",
          `NOTE='it'\\''s'`,
          'QUOTED="a \\"b\\""',
          '',
        ].join('\n'),
        'prod.env',
      ),
    ).toEqual({ AWS_PROFILE: 'prod', AWS_REGION: 'eu-west-1', NOTE: "it's", QUOTED: 'a "b"' });
  });

  it('names the file and line of a bad line without echoing its value', () => {
    expect(() => parseEnvText('export OK=1\nSECRET=two words', 'x.env')).toThrow(
      /x\.env:2 is not a NAME=value line/,
    );
    try {
      parseEnvText('SECRET=two words', 'x.env');
    } catch (error) {
      expect(String(error)).not.toContain('two words');
    }
  });
});
