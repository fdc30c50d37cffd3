import { describe, expect, it } from 'vitest';
import { classicTimedtext, json3Timedtext, playerResponse, srv3Timedtext, timedtextUrl, watchPage, type FakeVideo } from '../../../../../test/support/source-fixtures.js';
import { clock, passages } from '../video-site.js';
import { extractPlayerResponse, parseTimedText, parseVideoId, pickTrack, playerInfo } from './youtube.js';

describe('parseVideoId', () => {
  it('reads the id from every usual link form', () => {
    const id = 'dQw4w9WgXcQ';
    for (const url of [
      `https://www.youtube.com/watch?v=${id}`,
      `https://youtube.com/watch?feature=share&v=${id}&t=42s`,
      `https://m.youtube.com/watch?v=${id}`,
      `https://music.youtube.com/watch?v=${id}&list=RD`,
      // agno takes the part after "v=", which a youtu.be link does not have.
      `https://youtu.be/${id}`,
      `https://youtu.be/${id}?si=abcdef&t=10`,
      `https://www.youtube.com/shorts/${id}`,
      `https://www.youtube.com/embed/${id}?start=3`,
      `https://www.youtube-nocookie.com/embed/${id}`,
      `https://www.youtube.com/live/${id}?feature=shared`,
      `http://www.youtube.com/v/${id}`,
    ]) {
      expect(parseVideoId(url), url).toBe(id);
    }
  });

  it('refuses what is not a video link', () => {
    for (const url of [
      'https://www.youtube.com/',
      'https://www.youtube.com/watch?v=short',
      'https://www.youtube.com/watch?list=PL123',
      'https://www.youtube.com/@channel',
      'https://vimeo.com/123456',
      'https://evil.example/watch?v=dQw4w9WgXcQ',
      'https://youtu.be.evil.example/dQw4w9WgXcQ',
      'ftp://youtu.be/dQw4w9WgXcQ',
      'not a url',
    ]) {
      expect(parseVideoId(url), url).toBeUndefined();
    }
  });
});

const VIDEO: FakeVideo = {
  id: 'kEttLe_0001',
  title: 'Descaling "a" {copper} kettle',
  author: 'Kitchen Workshop',
  tracks: [
    { lang: 'de', name: 'German', asr: false, format: 'classic' },
    { lang: 'en', name: 'English (auto-generated)', asr: true, format: 'classic' },
  ],
};

describe('watch page', () => {
  it('finds the player response in the page script, braces inside strings included', () => {
    const response = extractPlayerResponse(watchPage(VIDEO));
    expect(response).toEqual(playerResponse(VIDEO));
    const info = playerInfo(response);
    expect(info).toMatchObject({ videoId: 'kEttLe_0001', title: 'Descaling "a" {copper} kettle', author: 'Kitchen Workshop', playability: 'OK' });
    expect(info.tracks).toEqual([
      { baseUrl: timedtextUrl('kEttLe_0001', 'de', false, 'classic'), languageCode: 'de', kind: undefined, name: 'German' },
      { baseUrl: timedtextUrl('kEttLe_0001', 'en', true, 'classic'), languageCode: 'en', kind: 'asr', name: 'English (auto-generated)' },
    ]);
  });

  it('reports a page without player data, and an unplayable video', () => {
    expect(extractPlayerResponse(watchPage(undefined))).toBeUndefined();
    const gone = playerInfo(extractPlayerResponse(watchPage({ ...VIDEO, tracks: [], playability: { status: 'ERROR', reason: 'Video unavailable' } })));
    expect(gone).toMatchObject({ playability: 'ERROR', playabilityReason: 'Video unavailable', tracks: [] });
  });

  it('picks written captions in a preferred language, then automatic ones, then anything', () => {
    const tracks = playerInfo(playerResponse(VIDEO)).tracks;
    expect(pickTrack(tracks, ['en'])?.languageCode).toBe('en');
    expect(pickTrack(tracks, ['fr', 'de'])?.languageCode).toBe('de');
    expect(pickTrack(tracks, ['fr'])?.languageCode).toBe('de');
    const written = [...tracks, { baseUrl: 'x', languageCode: 'en-GB', kind: undefined, name: 'English (UK)' }];
    expect(pickTrack(written, ['en'])?.languageCode).toBe('en-GB');
    expect(pickTrack([], ['en'])).toBeUndefined();
  });
});

describe('parseTimedText', () => {
  const captions = [
    { start: 0.4, dur: 3.1, text: "Today we're descaling a kettle" },
    { start: 3.5, dur: 4.2, text: 'with lemon juice & water <br>' },
  ];

  it('reads the classic XML, decoding its doubly escaped entities', () => {
    expect(parseTimedText(classicTimedtext(captions))).toEqual([
      { start: 0.4, duration: 3.1, text: "Today we're descaling a kettle" },
      { start: 3.5, duration: 4.2, text: 'with lemon juice & water' },
    ]);
  });

  it('reads format 3 XML (milliseconds, words in <s>) and json3', () => {
    const expected = [
      { start: 0.4, duration: 3.1, text: "Today we're descaling a kettle" },
      { start: 3.5, duration: 4.2, text: 'with lemon juice & water' },
    ];
    const plain = [captions[0]!, { ...captions[1]!, text: 'with lemon juice & water' }];
    expect(parseTimedText(srv3Timedtext(plain.map((c) => ({ ...c, text: c.text.replace('&', '&amp;').replace("'", '&#39;') })))).map((s) => s.text)).toEqual(expected.map((s) => s.text));
    expect(parseTimedText(json3Timedtext(plain))).toEqual(expected);
  });

  it('gives nothing for an empty or foreign answer', () => {
    expect(parseTimedText('')).toEqual([]);
    expect(parseTimedText('<html><body>consent</body></html>')).toEqual([]);
    expect(parseTimedText('{"not":"captions"}')).toEqual([]);
  });
});

describe('passages', () => {
  it('groups consecutive captions into windows and names their start', () => {
    const segments = [
      { start: 0.4, duration: 3, text: 'one' },
      { start: 30, duration: 3, text: 'two' },
      { start: 61.2, duration: 4, text: 'three' },
      { start: 3725, duration: 2, text: 'four' },
    ];
    expect(passages(segments, 60)).toEqual([
      { start: 0.4, end: 33, text: 'one two' },
      { start: 61.2, end: 65.2, text: 'three' },
      { start: 3725, end: 3727, text: 'four' },
    ]);
    expect(clock(0)).toBe('0:00');
    expect(clock(61)).toBe('1:01');
    expect(clock(3725)).toBe('1:02:05');
  });
});
