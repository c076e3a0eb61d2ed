export {
  CCM_CHART_DEFAULT_VALUES,
  CCM_CHART_NAME,
  CCM_CHART_REPO,
  CCM_CHART_VERSION,
  ccmChartDefaultValues,
} from './chart-defaults.js';
