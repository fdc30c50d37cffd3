// The runtime on Azure Container Apps with Azure Database for PostgreSQL Flexible Server.
// Deploy with the commands in README.md (az deployment group create).

@description('Location of every resource; defaults to the resource group\'s.')
param location string = resourceGroup().location

@description('Prefix of the resource names.')
param name string = 'runtime'

@description('The pushed image, e.g. myregistry.azurecr.io/runtime:v1')
param image string

@description('Registry server of the image, e.g. myregistry.azurecr.io; empty for a public image.')
param registryServer string = ''

@description('Registry user name (for ACR: the registry name with the admin user enabled).')
param registryUsername string = ''

@secure()
@description('Registry password.')
param registryPassword string = ''

@secure()
@minLength(16)
@description('PostgreSQL administrator password (letters and digits, so it needs no escaping in DATABASE_URL).')
param postgresPassword string

@secure()
@description('OpenAI API key for the agents. (Container Apps secrets cannot be empty.)')
param openaiApiKey string

@secure()
@description('Shared admin key of the runtime (auth_mode security_key).')
param osSecurityKey string

var postgresUser = 'runtime'
var databaseName = 'runtime'

resource logs 'Microsoft.OperationalInsights/workspaces@2022-10-01' = {
  name: '${name}-logs'
  location: location
  properties: {
    sku: { name: 'PerGB2018' }
    retentionInDays: 30
  }
}

resource environment 'Microsoft.App/managedEnvironments@2024-03-01' = {
  name: '${name}-env'
  location: location
  properties: {
    appLogsConfiguration: {
      destination: 'log-analytics'
      logAnalyticsConfiguration: {
        customerId: logs.properties.customerId
        sharedKey: logs.listKeys().primarySharedKey
      }
    }
  }
}

resource postgres 'Microsoft.DBforPostgreSQL/flexibleServers@2022-12-01' = {
  name: '${name}-${uniqueString(resourceGroup().id)}'
  location: location
  sku: {
    name: 'Standard_B1ms'
    tier: 'Burstable'
  }
  properties: {
    version: '16'
    administratorLogin: postgresUser
    administratorLoginPassword: postgresPassword
    storage: { storageSizeGB: 32 }
    backup: {
      backupRetentionDays: 7
      geoRedundantBackup: 'Disabled'
    }
    highAvailability: { mode: 'Disabled' }
  }
}

resource database 'Microsoft.DBforPostgreSQL/flexibleServers/databases@2022-12-01' = {
  parent: postgres
  name: databaseName
}

// Flexible Server only allows extensions on its allow-list; this lets the runtime use pgvector.
resource extensions 'Microsoft.DBforPostgreSQL/flexibleServers/configurations@2022-12-01' = {
  parent: postgres
  name: 'azure.extensions'
  properties: {
    value: 'VECTOR'
    source: 'user-override'
  }
}

// 0.0.0.0 to 0.0.0.0 is Azure's notation for "services running in Azure", which covers
// Container Apps without a virtual network. For a private setup, use VNet integration instead.
resource allowAzure 'Microsoft.DBforPostgreSQL/flexibleServers/firewallRules@2022-12-01' = {
  parent: postgres
  name: 'AllowAzureServices'
  properties: {
    startIpAddress: '0.0.0.0'
    endIpAddress: '0.0.0.0'
  }
}

var registries = empty(registryServer) ? [] : [
  {
    server: registryServer
    username: registryUsername
    passwordSecretRef: 'registry-password'
  }
]
var registrySecrets = empty(registryServer) ? [] : [
  {
    name: 'registry-password'
    value: registryPassword
  }
]

resource app 'Microsoft.App/containerApps@2024-03-01' = {
  name: name
  location: location
  dependsOn: [database, extensions, allowAzure]
  properties: {
    managedEnvironmentId: environment.id
    configuration: {
      ingress: {
        external: true
        targetPort: 7777
        transport: 'auto'
        allowInsecure: false
      }
      registries: registries
      // Azure's certificates are publicly trusted, so the connection verifies them (sslmode=require).
      secrets: concat(registrySecrets, [
        {
          name: 'database-url'
          value: 'postgres://${postgresUser}:${postgresPassword}@${postgres.properties.fullyQualifiedDomainName}:5432/${databaseName}?sslmode=require'
        }
        {
          name: 'openai-api-key'
          value: openaiApiKey
        }
        {
          name: 'os-security-key'
          value: osSecurityKey
        }
      ])
    }
    template: {
      containers: [
        {
          name: 'runtime'
          image: image
          resources: {
            cpu: json('0.5')
            memory: '1Gi'
          }
          env: [
            { name: 'HOST', value: '0.0.0.0' }
            { name: 'PORT', value: '7777' }
            { name: 'DATABASE_URL', secretRef: 'database-url' }
            { name: 'OPENAI_API_KEY', secretRef: 'openai-api-key' }
            { name: 'OS_SECURITY_KEY', secretRef: 'os-security-key' }
            // The app's public host name, so MCP clients reach it (DNS-rebinding guard).
            { name: 'MCP_ALLOWED_HOSTS', value: '${name}.${environment.properties.defaultDomain}' }
          ]
          probes: [
            {
              type: 'Startup'
              httpGet: { path: '/health', port: 7777 }
              periodSeconds: 5
              failureThreshold: 12
            }
            {
              type: 'Liveness'
              httpGet: { path: '/health', port: 7777 }
              periodSeconds: 15
            }
            {
              type: 'Readiness'
              httpGet: { path: '/health', port: 7777 }
              periodSeconds: 10
            }
          ]
        }
      ]
      scale: {
        minReplicas: 1
        maxReplicas: 3
      }
    }
  }
}

@description('Put this in .env as RUNTIME_URL for svc connect.')
output runtimeUrl string = 'https://${app.properties.configuration.ingress.fqdn}'
