import { describe, expect, it } from 'vitest';
import { exportsTarget, splitPackageSpec } from './resolve-package.js';

describe('splitPackageSpec', () => {
  it('splits scoped and unscoped names from their subpath', () => {
    expect(splitPackageSpec('@noderepair/openstack/provider')).toEqual({
      name: '@noderepair/openstack',
      subpath: './provider',
    });
    expect(splitPackageSpec('vsphere-provider')).toEqual({
      name: 'vsphere-provider',
      subpath: '.',
    });
    expect(splitPackageSpec('p/a/b')).toEqual({ name: 'p', subpath: './a/b' });
  });
});

describe('exportsTarget (the "import" view of a package.json exports field)', () => {
  it('takes the import/node/default condition, never require or source-only ones', () => {
    const ex = {
      '.': { source: './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
      './provider': { require: './cjs/p.cjs', default: './dist/p.js' },
      './cjs-only': { require: './cjs/x.cjs' },
    };
    expect(exportsTarget(ex, '.')).toBe('./dist/index.js');
    expect(exportsTarget(ex, './provider')).toBe('./dist/p.js');
    expect(exportsTarget(ex, './cjs-only')).toBeUndefined();
    expect(exportsTarget(ex, './missing')).toBeUndefined();
  });

  it('handles the sugar forms, nested conditions and one-star patterns', () => {
    expect(exportsTarget('./main.js', '.')).toBe('./main.js');
    expect(exportsTarget('./main.js', './x')).toBeUndefined();
    expect(exportsTarget({ import: './m.js' }, '.')).toBe('./m.js');
    expect(exportsTarget({ '.': { node: { import: './n.js' } } }, '.')).toBe('./n.js');
    expect(exportsTarget({ './providers/*': './dist/*.js' }, './providers/vsphere')).toBe(
      './dist/vsphere.js',
    );
    expect(exportsTarget({ './providers/*.js': './dist/*.js' }, './providers/.js')).toBeUndefined();
  });
});
