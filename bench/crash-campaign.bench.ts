// The crash campaign (issue 30 item 6; test/integration/reliability/crash-campaign.ts says how the kills are
// placed): per distribution, `uproot migrate --auto-resume` SIGKILLed at seeded moments across the journey to
// its target and started again until it finishes. Prints per distribution the kills survived, the runs after
// the first, the worst overlap and gap per controller (the twin's ledger), and wall and simulated seconds.
//
// Run: `npm run build && npm run bench -- crash-campaign`. UPROOT_CAMPAIGN_SEED replays a seed;
// UPROOT_CAMPAIGN_SCENARIOS=rke2-intree,rke-intree runs only those; UPROOT_CAMPAIGN_KILLS=0 is the
// uninterrupted journey (the baseline the kills are compared with).
import {
  CAMPAIGNS,
  GAP_BOUND_SECONDS,
  MIGRATED_CONTROLLERS,
  campaignSeed,
  runCampaign,
} from '../test/integration/reliability/crash-campaign.js';

export async function run(): Promise<Record<string, unknown>> {
  const seed = campaignSeed();
  const only = process.env.UPROOT_CAMPAIGN_SCENARIOS?.split(',').filter(Boolean);
  const out: Record<string, unknown> = { seed, gapBoundSeconds: GAP_BOUND_SECONDS };
  for (const { scenario, targetVersion } of CAMPAIGNS) {
    if (only && !only.includes(scenario)) continue;
    const kills = process.env.UPROOT_CAMPAIGN_KILLS;
    const r = await runCampaign({
      scenario,
      targetVersion,
      seed,
      ...(kills ? { kills: Number(kills) } : {}),
      log: (l) => process.stderr.write(`${l}\n`),
    });
    const migrated = MIGRATED_CONTROLLERS.flatMap((name) =>
      r.controllers[name] ? [r.controllers[name]] : [],
    );
    out[scenario] = {
      targetVersion,
      apiServerVersion: r.apiServerVersion,
      milestones: r.milestones,
      killsSurvived: r.kills.length,
      killsBeforeTheJournal: r.kills.filter((k) => !k.journalExisted).length,
      resumes: r.resumes,
      failedRuns: r.failedRuns.length,
      verifyExitCode: r.verify.exitCode,
      worstOverlapSeconds: Math.max(0, ...Object.values(r.controllers).map((c) => c.overlapSeconds)),
      worstMigratedGapSeconds: Math.max(0, ...migrated.map((c) => c.maxGapSeconds)),
      controllers: r.controllers,
      killedIn: r.kills.map((k) => `${k.step ?? '(before the first step)'}@${k.simulatedSecond}s`),
      steps: r.steps.map((s) => `${s.step}@${s.at}s`),
      wallSeconds: r.wallSeconds,
      simulatedSeconds: r.simulatedSeconds,
    };
  }
  return out;
}
