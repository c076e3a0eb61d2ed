export { buildReportModel, type ReportModel, type ReportStep, type ReportGate } from './report-model.js';
export { renderReportMarkdown } from './render-markdown.js';
export { renderReportHtml } from './render-html.js';
export { renderTimelineSvg } from './timeline-svg.js';
export { journalOwnership } from './journal-ownership.js';
export { renderFleetReportHtml } from './render-fleet-html.js';
