export * from './kubernetes-version.js';
