// Payloads shaped as the API document's webhook tables (and docs/decisions.md#orders-and-numbers for order status).

export const incomingMessage = {
  messageId: '6f1c2a9e-3b7d-4c2e-9a51-0d8e7f6a5b4c',
  from: '+15551230001',
  tos: ['+15551230002'],
  message: 'Hello from the other side',
  type: 0,
  tenantId: '0b7c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
  sentDate: '2025-01-02T03:04:05Z',
  targetNumber: '+15551230002',
  phoneNumberId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  threadId: 't-1',
  threadKey: 'k-1',
  dlrId: 'd-1',
  segmentCount: 1,
  tag: null,
  attachments: [{ name: 'cat.jpg', url: 'https://media.example/cat.jpg', contentType: 'image/jpeg', size: 1234 }],
};

export const deliveryReceipt = {
  messageId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
  status: 'delivered',
  statusReason: null,
  deliveredAt: '2025-01-02T03:04:06Z',
  errorCode: null,
  errorMessage: null,
};

export const failedReceipt = {
  messageId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6c',
  status: 'failed',
  statusReason: 'undeliverable',
  deliveredAt: null,
  errorCode: '30003',
  errorMessage: 'Unreachable handset',
};

export const orderStatus = {
  orderId: 1234,
  status: 'Completed',
  action: 'Provision',
  tenantId: '0b7c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
  provisionClass: 'P2P',
  provisionType: 'SMS',
  createDate: '2025-01-02T03:00:00Z',
  completionDate: '2025-01-02T03:02:00Z',
  phoneNumbers: [
    { number: '+15551230003', phoneNumberId: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e', status: 'Active', email: 'a@example.com' },
  ],
};
