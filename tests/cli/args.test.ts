import { describe, expect, it } from 'vitest';
import { DEFAULT_URL, parseArgs, UsageError } from '../../src/cli/args';

const ID = '3b17c0de-1234-4abc-9def-0123456789ab';
const usage = (argv: string[], env = {}) => {
  try {
    parseArgs(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
};

describe('bo1 argument parsing', () => {
  it('ask: the problem from the words, with every option', () => {
    const { command, global } = parseArgs(
      ['ask', 'Should', 'I', 'pivot?', '--context', '$12K MRR', '--budget=0.5', '--seed', 's1', '--no-checkpoint', 'board,round_end', '--no-checkpoint', 'statement'],
      {},
    );
    expect(command).toEqual({
      kind: 'ask',
      problem: ['Should', 'I', 'pivot?'],
      context: '$12K MRR',
      budget: 0.5,
      seed: 's1',
      auto: false,
      noCheckpoint: ['board', 'round_end', 'statement'],
    });
    expect(global).toEqual({ url: DEFAULT_URL, key: undefined, color: undefined, trace: false, retryForMs: 60_000 });
  });

  it('global options come from flags anywhere, or else the environment', () => {
    const env = { BO1_URL: 'http://env:1', BO1_API_KEY: 'k-env', BO1_RETRY_FOR_MS: '500' };
    expect(parseArgs(['cancel', ID], env).global).toMatchObject({ url: 'http://env:1', key: 'k-env', retryForMs: 500 });
    const { global } = parseArgs(['--url', 'https://flag:2', 'cancel', ID, '--key=k-flag', '--no-color', '--trace'], env);
    expect(global).toMatchObject({ url: 'https://flag:2', key: 'k-flag', color: false, trace: true });
    expect(parseArgs(['cancel', ID, '--color'], {}).global.color).toBe(true);
    // Empty counts as unset.
    expect(parseArgs(['cancel', ID], { BO1_URL: '', BO1_API_KEY: '' }).global).toMatchObject({ url: DEFAULT_URL, key: undefined });
  });

  it('stdin as the problem requires --auto, because it cannot also answer prompts', () => {
    expect(usage(['ask', '-']).message).toMatch(/add --auto/);
    expect(usage(['ask', '--file', '-']).message).toMatch(/add --auto/);
    expect(usage(['ask', 'x', '--context-file', '-']).message).toMatch(/add --auto/);
    expect(parseArgs(['ask', '-', '--auto']).command).toMatchObject({ kind: 'ask', problem: ['-'], auto: true });
    expect(parseArgs(['ask', '--file', 'p.txt']).command).toMatchObject({ file: 'p.txt', problem: [] });
  });

  it('refuses contradictions and bad values with the command named', () => {
    expect(usage(['ask']).message).toMatch(/what should the board decide/);
    expect(usage(['ask', 'x', '--file', 'f']).message).toMatch(/not both/);
    expect(usage(['ask', 'x', '--context', 'a', '--context-file', 'b']).message).toMatch(/not both/);
    expect(usage(['ask', 'x', '--auto', '--no-checkpoint', 'board']).message).toMatch(/interactive/);
    expect(usage(['ask', 'x', '--no-checkpoint', 'lunch']).message).toMatch(/unknown checkpoint kind "lunch"/);
    expect(usage(['ask', 'x', '--budget', '-1']).message).toMatch(/--budget/);
    expect(usage(['ask', 'x', '--budget']).message).toMatch(/needs a value/);
    expect(usage(['ask', 'x', '--auto=yes']).message).toMatch(/takes no value/);
    expect(usage(['ask', 'x', '--color', '--no-color']).message).toMatch(/contradict/);
    expect(usage(['ask', 'x', '--url', 'ftp://x']).message).toMatch(/http\(s\) URL/);
    expect(usage(['cancel', ID], { BO1_RETRY_FOR_MS: 'soon' }).message).toMatch(/BO1_RETRY_FOR_MS/);
  });

  it('unknown commands and options are usage errors', () => {
    const e = usage(['ask', 'x', '--verbose']);
    expect(e.message).toBe('unknown option --verbose for "ask"');
    expect(e.command).toBe('ask');
    expect(usage(['attach', ID, '--seed', 's']).message).toMatch(/unknown option --seed for "attach"/);
    expect(usage(['frobnicate']).message).toMatch(/unknown command "frobnicate"/);
    expect(usage([]).message).toMatch(/a command is required/);
    expect(usage(['--auto', 'ask', 'x']).message).toMatch(/unknown option --auto/);
    expect(usage(['ask', '-x']).message).toMatch(/unknown option -x/);
  });

  it('"--" ends the options, so a problem may start with a dash', () => {
    expect(parseArgs(['ask', '--auto', '--', '-5%', 'margin', '--really']).command).toMatchObject({ problem: ['-5%', 'margin', '--really'] });
  });

  it('attach, transcript and cancel take one session id', () => {
    expect(parseArgs(['attach', ID, '--after', '12', '--auto']).command).toEqual({ kind: 'attach', id: ID, after: 12, auto: true });
    expect(parseArgs(['attach', ID]).command).toEqual({ kind: 'attach', id: ID, after: 0, auto: false });
    expect(parseArgs(['transcript', ID, '--format', 'json', '--verbosity', 'concise']).command).toEqual({
      kind: 'transcript',
      id: ID,
      format: 'json',
      verbosity: 'concise',
    });
    expect(parseArgs(['transcript', ID]).command).toMatchObject({ format: 'markdown', verbosity: 'standard' });
    expect(parseArgs(['cancel', ID]).command).toEqual({ kind: 'cancel', id: ID });
    expect(usage(['attach']).message).toMatch(/session id is required/);
    expect(usage(['attach', 'abc']).message).toMatch(/not a session id/);
    expect(usage(['cancel', ID, ID]).message).toMatch(/unexpected argument/);
    expect(usage(['attach', ID, '--after', '-1']).message).toMatch(/--after/);
    expect(usage(['transcript', ID, '--format', 'pdf']).message).toMatch(/markdown, json/);
    expect(usage(['transcript', ID, '--verbosity', 'loud']).message).toMatch(/concise, standard, detailed/);
  });

  it('--help and -h, alone or per command', () => {
    expect(parseArgs(['--help']).command).toEqual({ kind: 'help', topic: 'main' });
    expect(parseArgs(['-h']).command).toEqual({ kind: 'help', topic: 'main' });
    expect(parseArgs(['ask', '--help']).command).toEqual({ kind: 'help', topic: 'ask' });
    // Help wins over what is missing.
    expect(parseArgs(['attach', '-h']).command).toEqual({ kind: 'help', topic: 'attach' });
  });
});
