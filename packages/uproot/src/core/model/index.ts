export * from './image-reference.js';
