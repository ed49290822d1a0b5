export const version = 4;
