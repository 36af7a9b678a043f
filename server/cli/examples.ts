/**
 * The Examples section of each command's help, as `partner-sim <command> --help` and
 * `partner-sim help <command>` print it. Each line runs as written from a project with the
 * package installed (a test holds every flag to the command's own help).
 */
export const EXAMPLES: Record<string, readonly string[]> = {
  serve: [
    'partner-sim serve                                # port 4010, state kept in ./data',
    'partner-sim serve --in-memory --port 4011        # a throw-away instance',
    'partner-sim serve --in-memory > sim.log          # CI: one JSON line per request',
    'partner-sim serve --transcriber http://127.0.0.1:8000   # words from a local speech server',
  ],
  contract: [
    'partner-sim contract                             # against an in-process simulator',
    'partner-sim contract --target http://127.0.0.1:4010',
    'partner-sim contract --target live --region jp   # credentials from PARTNER_* variables',
    'partner-sim contract --compare live              # where the simulator and live differ',
  ],
  compare: [
    'partner-sim compare data/recordings/session.har',
    'partner-sim compare session.har --target http://127.0.0.1:4010 --json',
    'partner-sim compare session.har --as-faults --target http://127.0.0.1:4010',
  ],
  transcribe: [
    'partner-sim transcribe meeting.mp3               # in-process simulator, no settings',
    'partner-sim transcribe meeting.mp3 --target http://127.0.0.1:4010 --json',
    'partner-sim transcribe call.opus --target live --region jp --deadline 20m',
  ],
  binding: [
    'partner-sim binding 8810B30227290003             # a fixture device with a bind history',
    'partner-sim binding 8810B30227290003 --target http://127.0.0.1:4010 --json',
  ],
  ca: [
    'partner-sim ca',
    'partner-sim ca --pem > partner-sim-ca.pem',
    'partner-sim ca --target http://192.168.1.20:4010 --pem > partner-sim-ca.pem   # another machine',
  ],
  health: [
    'partner-sim health --port 4010',
    'partner-sim health --port 4010 --https --timeout 2s',
    'partner-sim health --target http://127.0.0.1:4010 --json',
  ],
};

/** A command's help with its Examples section after it. */
export function withExamples(command: string, help: string): string {
  const lines = EXAMPLES[command];
  if (!lines) return help;
  return `${help.trimEnd()}\n\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
