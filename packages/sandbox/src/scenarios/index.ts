/** Scenarios: the documented YAML format describing a twin cluster (docs/sandbox.md), its schema and loader. */
export {
  scenarioSchema,
  NAMING_MODES,
  type NamingMode,
  type Scenario,
  type ScenarioInput,
  type Distribution,
  type LoadBalancerServiceSpec,
  type PersistentVolumeSpec,
} from './scenario-schema.js';
export {
  faultsSchema,
  parseFaultsFlag,
  withFaults,
  anyFaults,
  DEFAULT_FAULTS,
  type Faults,
  type FaultsInput,
} from './fault-spec.js';
export {
  loadScenario,
  parseScenario,
  parseScenarioText,
  builtinScenarioNames,
  BUILTIN_SCENARIO_DIR,
  type LoadedScenario,
} from './load-scenario.js';
