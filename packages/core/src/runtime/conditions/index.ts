export * from './metav1.js';
export * from './capi-v1beta1.js';
