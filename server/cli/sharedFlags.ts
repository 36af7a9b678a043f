import { asRegion } from '../core/regions.js';

/**
 * The options every command spells the same way (issue 47, one CLI grammar), declared once:
 * a command spreads the ones that apply into its parseArgs options, so `--target`, `--region`,
 * `--json` and `--admin-token` mean one thing and parse one way wherever they are taken.
 * parseArgs (./parseArgs.ts) adds `--base-url <url>` beside any `--target`.
 *
 *   --target <sim|URL|live>  transcribe, binding, contract, compare, health, ca
 *   --region <us|jp|eu|sg>   where a region matters: transcribe, binding, contract
 *   --json                   every command that reports
 *   --admin-token <token>    every command that calls the control API: serve (its own),
 *                            contract, compare, health
 */

/** `--target` (sim unless given) and `--region`, as the client commands take them. */
export const targetFlags = {
  target: { type: 'string', default: 'sim' },
  region: { type: 'string' },
} as const;

/**
 * `--target` without a default, for a command whose own flags name what it asks when no
 * target is given (health: the listener that the serve flags describe; ca: the local CA).
 */
export const targetFlag = { target: { type: 'string' } } as const;

/** `--json`: the report as JSON on stdout, people's lines elsewhere. */
export const jsonFlag = { json: { type: 'boolean', default: false } } as const;

/** `--admin-token`: the control API's token, over the PARTNER_SIM_ADMIN_TOKEN variable. */
export const adminTokenFlag = { 'admin-token': { type: 'string' } } as const;

/** Whether a --target names the live service (live or one of its regions). */
export const isLive = (target: string): boolean => target === 'live' || asRegion(target) !== undefined;
