import { describe, expect, it } from 'vitest';
import { imageServerPublicUrl } from '../../src/bmac/main.js';
import { UsageError } from '../../src/shared/errors.js';

const everywhere = { imageServerBindAddress: { host: '', port: 8082 } };

describe('the image server URL BMCs are given', () => {
  it('is --image-server-url when given, without a trailing slash', () => {
    expect(
      imageServerPublicUrl({ ...everywhere, imageServerUrl: 'https://images.hub.example/' }, {}),
    ).toBe('https://images.hub.example');
  });

  it('is the pod’s address when the server listens on every interface', () => {
    expect(imageServerPublicUrl(everywhere, { POD_IP: '10.128.2.17' })).toBe(
      'http://10.128.2.17:8082',
    );
    expect(
      imageServerPublicUrl(
        { imageServerBindAddress: { host: '::', port: 6180 } },
        { POD_IP: 'fd01:0:0:3::1a' },
      ),
    ).toBe('http://[fd01:0:0:3::1a]:6180');
  });

  it('refuses to start on every interface without POD_IP, naming --image-server-url', () => {
    for (const host of ['', '0.0.0.0', '::']) {
      const call = () => imageServerPublicUrl({ imageServerBindAddress: { host, port: 8082 } }, {});
      expect(call).toThrow(UsageError);
      expect(call).toThrow(/--image-server-url/);
    }
  });

  it('is its listening address when it listens on one', () => {
    expect(
      imageServerPublicUrl({ imageServerBindAddress: { host: '127.0.0.1', port: 8082 } }, {}),
    ).toBeUndefined();
  });
});
