export { buildReportModel, type ReportModel, type ReportStep, type ReportGate } from './report-model.js';
export { renderReportMarkdown } from './render-markdown.js';
export { renderReportHtml } from './render-html.js';
export { renderTimelineSvg } from './timeline-svg.js';
// The journal's ownership timeline is the core's (src/core/ownership/journal-ownership.ts).
export { journalOwnership } from '../core/ownership/index.js';
export { renderFleetReportHtml } from './render-fleet-html.js';
