import { describe, expect, it } from 'vitest';
import { bmpClaiming, gifClaiming, jpegClaiming, pngClaiming, tiffClaiming, webpClaiming } from '../../../../test/support/hostile-media.js';
import { imageSize, jpegSize } from './image-size.js';

const huge = { width: 50_000, height: 50_000 };

describe('imageSize', () => {
  it('reads the size each format declares', () => {
    expect(imageSize(pngClaiming(50_000, 40_000), 'png')).toEqual({ width: 50_000, height: 40_000 });
    expect(imageSize(jpegClaiming(640, 480), 'jpeg')).toEqual({ width: 640, height: 480 });
    expect(imageSize(tiffClaiming([[[300, 200]]]), 'tiff')).toEqual({ width: 300, height: 200 });
    expect(imageSize(gifClaiming(20, 10), 'gif')).toEqual({ width: 20, height: 10 });
    expect(imageSize(webpClaiming([16_383, 16_383]), 'webp')).toEqual({ width: 16_383, height: 16_383 });
  });

  it('reads a JPEG frame header behind fill bytes (0xFF repeated before a marker)', () => {
    expect(imageSize(jpegClaiming(50_000, 50_000, { fill: true }), 'jpeg')).toEqual(huge);
  });

  it('skips an EXIF thumbnail inside APP1 rather than taking its frame header for the image', () => {
    expect(imageSize(jpegClaiming(50_000, 50_000, { thumbnail: true, fill: true }), 'jpeg')).toEqual(huge);
  });

  it('reads any SOFn (progressive, lossless, arithmetic), not only baseline', () => {
    for (const marker of [0xc1, 0xc2, 0xc3, 0xc9, 0xcb, 0xcf]) {
      const data = jpegClaiming(4000, 3000);
      const sof = Buffer.from(data).indexOf(Buffer.from([0xff, 0xc0]));
      data[sof + 1] = marker;
      expect(jpegSize(data), `SOF 0x${marker.toString(16)}`).toEqual({ width: 4000, height: 3000 });
    }
  });

  it('gives no size for a JPEG whose scan comes before any frame header, or that is cut short', () => {
    expect(jpegSize(Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9]))).toBeUndefined();
    const whole = jpegClaiming(640, 480);
    const sof = Buffer.from(whole).indexOf(Buffer.from([0xff, 0xc0]));
    expect(jpegSize(whole.subarray(0, sof + 6))).toBeUndefined();
  });

  it('takes the largest of a TIFF tag given twice, and of every page', () => {
    expect(imageSize(tiffClaiming([[[10, 10], [50_000, 50_000]]]), 'tiff')).toEqual(huge);
    expect(imageSize(tiffClaiming([[[50_000, 50_000], [10, 10]]]), 'tiff')).toEqual(huge);
    expect(imageSize(tiffClaiming([[[100, 100]], [[50_000, 50_000]], [[200, 200]]]), 'tiff')).toEqual(huge);
  });

  it('ends on a TIFF whose IFDs point back at themselves', () => {
    const data = tiffClaiming([[[100, 100]]]);
    // The next-IFD offset (the last four bytes) points at the first IFD again.
    data.set([8, 0, 0, 0], data.length - 4);
    expect(imageSize(data, 'tiff')).toEqual({ width: 100, height: 100 });
  });

  it('counts a GIF frame or a WebP animation frame larger than the canvas', () => {
    const gif = gifClaiming(50_000, 50_000);
    // The logical screen says 1 x 1; only the image descriptor claims the size.
    expect(gif.subarray(6, 10)).toEqual(Uint8Array.from([1, 0, 1, 0]));
    expect(imageSize(gif, 'gif')).toEqual(huge);
    expect(imageSize(webpClaiming([16, 16], [16_000, 16_000]), 'webp')).toEqual({ width: 16_000, height: 16_000 });
  });

  it('reads a top-down BMP (negative height) by its magnitude', () => {
    expect(imageSize(bmpClaiming(50_000, 50_000), 'bmp')).toEqual(huge);
  });

  it('gives no size for headers cut short or a format it does not know', () => {
    expect(imageSize(pngClaiming(10, 10).subarray(0, 20), 'png')).toBeUndefined();
    expect(imageSize(Uint8Array.from([0x49, 0x49, 42, 0]), 'tiff')).toBeUndefined();
    expect(imageSize(bmpClaiming(10, 10).subarray(0, 20), 'bmp')).toBeUndefined();
    expect(imageSize(pngClaiming(10, 10), 'avif')).toBeUndefined();
  });
});
