import { describe, expect, it } from 'vitest';
import { environmentRedactor, environmentSecrets, redactDeep, redactor } from '../../../engine/util/redact.js';

describe('the redactor', () => {
  it('redacts secrets by name, and a URL-valued variable whatever its name, with its password alone', () => {
    const redact = environmentRedactor({
      GITHUB_TOKEN: 'ghp_abcdefghijklmnop',
      DATABASE_URL: 'postgres://app:hunter22pw@db.internal:5432/prod',
      MIRROR: 'https://bob:p%40ss%2Fword@mirror.example.com',
      HOME: '/home/me',
    });
    expect(redact('token ghp_abcdefghijklmnop here')).toBe('token [redacted ${GITHUB_TOKEN}] here');
    expect(redact('url=postgres://app:hunter22pw@db.internal:5432/prod')).toBe('url=[redacted ${DATABASE_URL}]');
    expect(redact('PGPASSWORD=hunter22pw')).toBe('PGPASSWORD=[redacted ${DATABASE_URL}]');
    expect(redact('the password is p@ss/word')).toBe('the password is [redacted ${MIRROR}]');
    expect(redact('home is /home/me')).toBe('home is /home/me');
    expect(environmentSecrets({ PLAIN_URL: 'https://example.com/x', SHORT: 'x' })).toEqual([]);
  });

  it("redacts any URL's password, known or not, and never reaches across quotes", () => {
    const redact = redactor([]);
    expect(redact('clone https://admin:s3cretpw@git.example.com/repo.git')).toBe(
      'clone https://admin:[redacted]@git.example.com/repo.git',
    );
    expect(redact('amqp://:onlypass@queue')).toBe('amqp://:[redacted]@queue');
    expect(redact('ssh://git@github.com/x and mailto:a@b.c')).toBe('ssh://git@github.com/x and mailto:a@b.c');
    const json = JSON.stringify({ a: 'see http://u:p', b: 'x@y' });
    expect(redact(json)).toBe(json);
    expect(redactDeep({ list: ['redis://default:topsecret@cache:6379'] }, redact)).toEqual({
      list: ['redis://default:[redacted]@cache:6379'],
    });
  });
});
