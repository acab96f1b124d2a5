import { describe, expect, it } from 'vitest';
import { lastOverlayLine } from './overlay-figures.js';

describe('lastOverlayLine', () => {
  it('takes the last overlayfs-gen/vm line of a vitest log', () => {
    const log = [
      ' ✓ test/vm/boot.vm.test.ts > the overlay unit ran at boot',
      '{"benchmark":"overlayfs-gen/vm","overlayUnitMs":80,"userspaceMsWithOverlay":4100}',
      '{"benchmark":"other","x":1}',
      '{"benchmark":"overlayfs-gen/vm","overlayUnitMs":62,"userspaceMsWithoutOverlay":3900,"userspaceMsWithOverlay":4000}',
      ' Test Files  1 passed (1)',
    ].join('\n');
    expect(lastOverlayLine(log)).toEqual({
      benchmark: 'overlayfs-gen/vm',
      overlayUnitMs: 62,
      userspaceMsWithoutOverlay: 3900,
      userspaceMsWithOverlay: 4000,
    });
  });

  it('is undefined when the VM test never printed its line', () => {
    expect(lastOverlayLine(' ✗ beforeAll failed\n{"benchmark":"other"}')).toBeUndefined();
  });
});
